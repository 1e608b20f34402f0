import Foundation

/// Key-value coding: reading and writing properties by name.
///
/// Attributes come back as their Swift types (`Int16`, `String`, `Date`, …), to-one
/// relationships as `ManagedObject?`, unordered to-many relationships as `Set<ManagedObject>` and
/// ordered ones as `[ManagedObject]`. All of it must run on the object's context's queue.
extension ManagedObject {
    /// The value of the property `key`, loading the object's values first if it is a fault.
    /// An unknown key returns `nil` and records the problem for the next `save()`.
    /// Call on the object's context's queue.
    public func value(forKey key: String) -> Any? {
        checkAccess("value(forKey:)")
        guard let slot = entity.layout.slot(forKey: key) else {
            recordUnknownKey(key, call: "value(forKey:)")
            return nil
        }
        return value(at: slot)
    }

    /// Sets the property `key`, keeping relationship inverses in step. A value of the wrong type,
    /// an unknown key or an unusable number is not stored: the problem is recorded and the next
    /// `save()` throws it (this API cannot throw). Call on the object's context's queue.
    public func setValue(_ value: Any?, forKey key: String) {
        checkAccess("setValue(_:forKey:)")
        guard let slot = entity.layout.slot(forKey: key) else {
            recordUnknownKey(key, call: "setValue(_:forKey:)")
            return
        }
        setValue(value, at: slot, key: key, maintainingInverses: true)
    }

    /// The value at a dotted key path (`"department.name"`): each step through a to-one.
    /// A to-many step returns the set (or array) of values of the rest of the path.
    /// Call on the object's context's queue.
    public func value(forKeyPath keyPath: String) -> Any? {
        checkAccess("value(forKeyPath:)")
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return KeyPathWalker.value(of: self, components: components[...])
    }

    /// The value of `key` without side effects on change tracking (Core Data's primitive
    /// accessor); reads the same storage as `value(forKey:)`. Call on the object's context's queue.
    public func primitiveValue(forKey key: String) -> Any? {
        checkAccess("primitiveValue(forKey:)")
        guard let slot = entity.layout.slot(forKey: key) else {
            recordUnknownKey(key, call: "primitiveValue(forKey:)")
            return nil
        }
        return value(at: slot)
    }

    /// Sets `key` without maintaining relationship inverses (Core Data's primitive setter). The
    /// change is still tracked and saved. Call on the object's context's queue.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        checkAccess("setPrimitiveValue(_:forKey:)")
        guard let slot = entity.layout.slot(forKey: key) else {
            recordUnknownKey(key, call: "setPrimitiveValue(_:forKey:)")
            return
        }
        setValue(value, at: slot, key: key, maintainingInverses: false)
    }

    /// The changed persistent properties and their new values, since the object was loaded or
    /// last saved (transient attributes and relationships are tracked, but not listed here, as
    /// in Core Data). Call on the object's context's queue.
    public func changedValues() -> [String: Any] {
        checkAccess("changedValues()")
        var result: [String: Any] = [:]
        let layout = entity.layout
        for index in changedMask.indexes {
            guard let property = layout.property(atChangeIndex: index), !property.isTransient, let slot = layout.slot(forKey: property.name) else { continue }
            result[property.name] = value(at: slot) ?? NSNull()
        }
        return result
    }

    /// The values of `keys` (all stored properties when `nil`: no transient attribute or
    /// relationship) as last loaded from or saved to the parent store; `NSNull()` for nil. An
    /// inserted object has no committed values. Call on the object's context's queue.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        checkAccess("committedValues(forKeys:)")
        fireFaultIfNeeded()
        guard let snapshot else { return [:] }
        let layout = entity.layout
        let names = keys ?? (layout.storedAttributes.map(\.name) + (layout.toOneRelationships + layout.toManyRelationships).filter { !$0.isTransient }.map(\.name))
        var result: [String: Any] = [:]
        for name in names {
            switch layout.slot(forKey: name) {
            case .attribute(let slot)?:
                let attribute = layout.storedAttributes[slot]
                result[name] = slot < snapshot.attributes.count ? (AttributeCodec.decode(snapshot.attributes[slot], for: attribute) ?? NSNull()) : NSNull()
            case .toOne(let slot)?:
                let id = slot < snapshot.toOneCount ? snapshot.toOne(at: slot) : nil
                result[name] = id.map { relatedObject($0) as Any } ?? NSNull()
            case .toMany(let slot)?:
                let relationship = layout.toManyRelationships[slot]
                if let committed = committedToMany.indices.contains(slot) ? committedToMany[slot] : nil {
                    let objects = committed.ids.compactMap { relatedObject($0) }
                    result[name] = relationship.isOrdered ? objects as Any : Set(objects) as Any
                }
            default:
                break
            }
        }
        return result
    }

    // MARK: Typed fast paths (property wrappers)

    /// The stored value and type of the stored attribute `key`, loading the object's values
    /// first; nil for other keys. The inlined typed read of ``Attribute`` calls it: one call,
    /// with the key's slot found inline (it was three nested calls).
    @usableFromInline
    func _storedAttribute(forKey key: String) -> (StoredAttributeValue, AttributeType)? {
        checkAccess("value(forKey:)")
        guard let (index, type) = _storedAttributeSlot(forKey: key) else { return nil }
        fireFaultIfNeeded()
        guard index < attributeValues.count else { return nil }
        return (StoredAttributeValue(attributeValues[index]), type)
    }

    /// The slot and type of the stored attribute `key`, or nil for other keys: the inlined typed
    /// write of ``Attribute`` looks its key up once, here, and sets the value by slot; the typed
    /// read above gets it inline.
    @usableFromInline @inline(__always)
    func _storedAttributeSlot(forKey key: String) -> (slot: Int, type: AttributeType)? {
        guard case .attribute(let index)? = entity.layout.slot(forKey: key) else { return nil }
        return (index, entity.layout.storedAttributeTypes[index])
    }

    /// ``setStoredAttribute(_:slot:forKey:)`` for the inlined typed write of ``Attribute``.
    @usableFromInline
    func _setStoredAttribute(_ stored: StoredAttributeValue, slot: Int, forKey key: String) { setStoredAttribute(stored.raw, slot: slot, forKey: key) }

    /// Sets the stored attribute at `slot` (the slot of `key`, which names it in errors) from a
    /// value already in stored form.
    func setStoredAttribute(_ stored: StoredValue, slot index: Int, forKey key: String) {
        checkAccess("setValue(_:forKey:)")
        if change == .deleted {
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(key)' was set on a deleted \(entity.name)", entityName: entity.name, key: key, objectID: objectID))
            return
        }
        fireFaultIfNeeded()
        guard index < attributeValues.count, !attributeValues[index].isIdentical(to: stored) else { return }
        willChange(.attribute(index))
        attributeValues[index] = stored
        markChanged(.attribute(index))
    }

    // MARK: Slot access

    func value(at slot: PropertySlot) -> Any? {
        switch slot {
        case .attribute(let index):
            fireFaultIfNeeded()
            guard index < attributeValues.count else { return nil }
            let type = entity.layout.storedAttributeTypes[index]
            if type == .transformable { return AttributeCodec.decode(attributeValues[index], for: entity.layout.storedAttributes[index]) }
            return AttributeCodec.decode(attributeValues[index], type: type)
        case .transient(let index):
            fireFaultIfNeeded()
            return index < transientValues.count ? transientValues[index] : nil
        case .toOne(let index):
            fireFaultIfNeeded()
            guard index < toOneValues.count, let id = toOneValues[index] else { return nil }
            return relatedObject(id)
        case .toMany(let index):
            let relationship = entity.layout.toManyRelationships[index]
            let objects = toManyObjects(slot: index)
            return relationship.isOrdered ? objects as Any : Set(objects) as Any
        case .fetched(let index):
            return fetchedPropertyValue(index: index)
        }
    }

    func setValue(_ value: Any?, at slot: PropertySlot, key: String, maintainingInverses: Bool) {
        if change == .deleted {
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(key)' was set on a deleted \(entity.name)", entityName: entity.name, key: key, objectID: objectID))
            return
        }
        switch slot {
        case .attribute(let index):
            let attribute = entity.layout.storedAttributes[index]
            switch AttributeCodec.encode(value, for: attribute) {
            case .success(let stored):
                fireFaultIfNeeded()
                guard index < attributeValues.count else { return }
                if attributeValues[index].isIdentical(to: stored) { return }
                willChange(slot)
                attributeValues[index] = stored
                markChanged(slot)
            case .failure(let problem):
                record(StrataError(code: problem.code, message: problem.message, entityName: entity.name, key: key, objectID: objectID, valueDescription: value.map { String(describing: $0) }))
            }
        case .transient(let index):
            fireFaultIfNeeded()
            guard index < transientValues.count else { return }
            willChange(slot)
            transientValues[index] = AttributeCodec.unwrapOptional(value)
            markChanged(slot)
        case .toOne(let index):
            let relationship = entity.layout.toOneRelationships[index]
            guard let target = relationshipTarget(value, relationship: relationship) else { return }
            setToOne(target, slot: index, maintainingInverse: maintainingInverses)
        case .toMany(let index):
            let relationship = entity.layout.toManyRelationships[index]
            guard let targets = relationshipTargets(value, relationship: relationship) else { return }
            replaceToMany(slot: index, with: targets, maintainingInverse: maintainingInverses)
        case .fetched:
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "Fetched property '\(entity.name).\(key)' is read-only", entityName: entity.name, key: key, objectID: objectID))
        }
    }

    /// Tells the context that the property in `slot` is about to change, when it listens to
    /// every change (an undo manager is set: ``ObjectRegistry/reportsEveryValueChange``): the
    /// undo manager reads the old value. Called by every write of a property value, before the
    /// write. Without a listener it costs a load of a flag of the registry (which `markChanged`
    /// reads right after) and a branch.
    @inline(__always)
    func willChange(_ slot: PropertySlot) {
        if let registry, registry.reportsEveryValueChange { registry.owner?.objectWillChange(self, at: slot) }
    }

    /// Marks a property changed and tells the context, unless the change cannot change what the
    /// context knows or reports: the object is inserted with its insert (or an edit) already
    /// noted in the current event, or updated with its update already noted — and nobody
    /// observes every change (``ObjectRegistry/reportsEveryValueChange``). An edit of an
    /// inserted object whose insert was reported in an earlier event is reported as an update.
    func markChanged(_ slot: PropertySlot) {
        if let index = entity.layout.changeIndex(of: slot) { changedMask.insert(index) }
        changedSinceWillSave = true
        guard let registry else { return }
        if !registry.reportsEveryValueChange && ((change == .inserted && !eventChanges.isEmpty) || (change == .updated && eventChanges.contains(.updated))) { return }
        registry.changeRecorder?.objectDidChange(self)
    }

    /// Records a problem for the next save (for APIs that cannot throw).
    func record(_ problem: StrataError) {
        if let link {
            link.recordProblem(problem, for: self)
        } else {
            recordedProblems.append(problem)
        }
    }

    private func recordUnknownKey(_ key: String, call: String) {
        record(
            StrataError(
                code: StrataError.Code.managedObjectValidation,
                message: "\(call): entity '\(entity.name)' has no property named '\(key)'",
                entityName: entity.name, key: key, objectID: objectID))
    }
}
