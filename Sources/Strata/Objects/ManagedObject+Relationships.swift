import Foundation

/// Relationship edits with inverse maintenance: setting one side updates the other side at once,
/// including removal from the old partner's collection (Core Data's behaviour).
extension ManagedObject {
    /// The object `id` names in this object's context: the one registered under it, found in
    /// the identity map the object holds, or else the context's new fault for it (see
    /// `ManagedObjectContext.objectForRelationship`). An object resolves one related ID through
    /// here wherever it does (reads, inverse upkeep, committed values; loops over many IDs bind
    /// the context once instead). A registered target is found without a call
    /// into the context, which would retain the context for the call: a context's reference
    /// count is in a side table (the weak lists of its coordinator and parent), so that retain
    /// takes the runtime's slow path, on every to-one read. Only the call that makes a fault
    /// runs user code (the subclass's initializer), and it still holds the context. Call on the
    /// object's context's queue.
    @inline(__always) func relatedObject(_ id: ManagedObjectID) -> ManagedObject? {
        if let registered = registry?.object(for: id) { return registered }
        return link?.objectForRelationship(id)
    }

    /// Checks that `value` can be the target of a to-one relationship: nil, or an object of the
    /// destination entity (or a sub-entity) in the same context.
    func relationshipTarget(_ value: Any?, relationship: RelationshipDescription) -> ManagedObject?? {
        guard let unwrapped = AttributeCodec.unwrapOptional(value) else { return .some(nil) }
        guard let target = unwrapped as? ManagedObject else {
            record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' is a to-one relationship; it cannot hold a value of type \(type(of: unwrapped))",
                    entityName: entity.name, key: relationship.name, objectID: objectID))
            return nil
        }
        return checkTarget(target, relationship: relationship) ? .some(target) : nil
    }

    /// Checks the objects given for a to-many relationship: a `Set` or array of objects, each of the
    /// destination entity and in the same context.
    func relationshipTargets(_ value: Any?, relationship: RelationshipDescription) -> [ManagedObject]? {
        guard let unwrapped = AttributeCodec.unwrapOptional(value) else { return [] }
        let objects: [ManagedObject]
        switch unwrapped {
        case let set as Set<ManagedObject>: objects = Array(set)
        case let array as [ManagedObject]: objects = array
        case let any as [Any]:
            guard let typed = any as? [ManagedObject] else { fallthrough }
            objects = typed
        default:
            if let sequence = unwrapped as? any Sequence, let typed = Array(sequence) as? [ManagedObject] {
                objects = typed
            } else {
                record(
                    StrataError(
                        code: StrataError.Code.managedObjectValidation,
                        message: "'\(entity.name).\(relationship.name)' is a to-many relationship; it needs a Set or Array of objects, not \(type(of: unwrapped))", entityName: entity.name,
                        key: relationship.name, objectID: objectID))
                return nil
            }
        }
        for object in objects where !checkTarget(object, relationship: relationship) { return nil }
        return objects
    }

    /// Whether `target` may be put in `relationship`: an object of the destination entity (or a
    /// sub-entity), in this object's context, not deleted. Records the problem when not.
    func checkTarget(_ target: ManagedObject, relationship: RelationshipDescription) -> Bool {
        guard let destination = relationship.destinationEntity, target.entity.isKindOf(entity: destination) else {
            record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation,
                    message: "'\(entity.name).\(relationship.name)' needs objects of entity '\(relationship.destinationEntityName ?? "?")', not '\(target.entity.name)'", entityName: entity.name,
                    key: relationship.name, objectID: objectID))
            return false
        }
        guard let link, target.link === link else {
            record(
                StrataError(
                    code: StrataError.Code.managedObjectExternalRelationship,
                    message: "'\(entity.name).\(relationship.name)' cannot point to an object of another context (or of none); fetch it into this context with object(with:) first",
                    entityName: entity.name, key: relationship.name, objectID: objectID))
            return false
        }
        if target.change == .deleted {
            record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' cannot point to a deleted \(target.entity.name)", entityName: entity.name,
                    key: relationship.name, objectID: objectID))
            return false
        }
        return true
    }

    // MARK: To-one

    /// Points the to-one in `slot` at `target`; with `maintainingInverse`, the old partner drops
    /// this object and the new one gains it (leaving its own previous partner, for one-to-ones).
    func setToOne(_ target: ManagedObject?, slot: Int, maintainingInverse: Bool) {
        fireFaultIfNeeded()
        guard slot < toOneValues.count else { return }
        let oldID = toOneValues[slot]
        let newID = target?.objectID
        if oldID == newID { return }
        willChange(.toOne(slot))
        toOneValues[slot] = newID
        markChanged(.toOne(slot))
        guard maintainingInverse, let inverse = entity.layout.inverse(of: .toOne(slot)) else { return }
        if let oldID, let old = relatedObject(oldID) {
            old.inverseRemove(self, at: inverse.slot)
        }
        target?.inverseAdd(self, at: inverse.slot)
    }

    // MARK: To-many

    /// Loads a to-many relationship's IDs if they are not loaded yet (one query; none for an
    /// object that was never saved), applying the edits recorded while it was not loaded.
    func ensureToManyLoaded(slot: Int) {
        guard slot < toManyValues.count else { return }
        if let current = toManyValues[slot] {
            // Contents installed by someone else (a prefetch) while edits were pending.
            if !pendingToMany.isEmpty, let delta = takePendingEdits(slot: slot) {
                toManyValues[slot] = delta.applied(to: current)
            }
            return
        }
        let relationship = entity.layout.toManyRelationships[slot]
        let ids: [ManagedObjectID]
        if change == .inserted {
            ids = []
        } else {
            // Also for temporary IDs: in a child context, an object the parent inserted has its
            // contents in the parent (the coordinator answers "none" for unsaved objects).
            ids = link?.loadToMany(of: self, relationship: relationship) ?? []
        }
        installLoadedToMany(slot: slot, ids: ids)
    }

    /// Installs the stored contents `ids` of a to-many that was not loaded, with the edits
    /// recorded meanwhile applied on top; `ids` become the committed contents.
    func installLoadedToMany(slot: Int, ids: [ManagedObjectID]) {
        guard slot < toManyValues.count, toManyValues[slot] == nil else { return }
        let stored = ToManyValue(ids)
        toManyValues[slot] = takePendingEdits(slot: slot).map { $0.applied(to: stored) } ?? stored
        if slot < committedToMany.count, committedToMany[slot] == nil { committedToMany[slot] = stored }
    }

    /// Removes and returns the edits pending on `slot`; edits of an object that is no longer
    /// changed (rolled back, saved) are stale and dropped.
    private func takePendingEdits(slot: Int) -> ToManyDelta? {
        guard let delta = pendingToMany.removeValue(forKey: slot) else { return nil }
        return change == .none ? nil : delta
    }

    /// Records an edit of the to-many in `slot` without loading it, when that is possible (a
    /// saved object whose contents are not loaded; the edit adds at the end or removes, so it
    /// suits ordered relationships too). Returns false when the edit must be made on loaded
    /// contents instead.
    private func deferEdit(slot: Int, _ edit: (inout ToManyDelta) -> Void) -> Bool {
        guard slot < toManyValues.count, toManyValues[slot] == nil, change != .inserted, !objectID.isTemporaryID else { return false }
        if change == .none && !pendingToMany.isEmpty { pendingToMany.removeAll() }  // stale
        edit(&pendingToMany[slot, default: ToManyDelta()])
        markChanged(.toMany(slot))
        return true
    }

    /// The objects of a to-many relationship, in order (faults for the ones not loaded yet).
    func toManyObjects(slot: Int) -> [ManagedObject] {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count, let value = toManyValues[slot], let link else { return [] }
        return value.ids.map { link.objectForRelationship($0) }
    }

    /// The IDs of a to-many relationship, in order.
    func toManyIDs(slot: Int) -> [ManagedObjectID] {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count, let value = toManyValues[slot] else { return [] }
        return value.ids
    }

    /// Loads the contents of the to-many in `slot` for an edit that needs them (an ordered
    /// relationship, a position, a replacement). Returns false when there is no such slot.
    private func prepareToManyEdit(slot: Int) -> Bool {
        ensureToManyLoaded(slot: slot)
        return slot < toManyValues.count && toManyValues[slot] != nil
    }

    /// Adds `target` to a to-many (at `index` for ordered ones, else at the end).
    func addToMany(_ target: ManagedObject, slot: Int, at index: Int? = nil, maintainingInverse: Bool = true) {
        willChange(.toMany(slot))
        let inverse = maintainingInverse ? entity.layout.inverse(of: .toMany(slot)) : nil
        if index == nil, deferEdit(slot: slot, { $0.add(target.objectID) }) {
            // Whether it was there already is unknown until the contents load; the inverse
            // side's edit is idempotent, so making it anyway is right either way.
            if let inverse { target.inverseAdd(self, at: inverse.slot) }
            return
        }
        guard prepareToManyEdit(slot: slot) else { return }
        // Mutate in place (optional chaining through the subscript): no copy of the contents.
        let added = index.map { toManyValues[slot]?.insert(target.objectID, at: $0) } ?? toManyValues[slot]?.append(target.objectID)
        guard added == true else { return }
        markChanged(.toMany(slot))
        if let inverse { target.inverseAdd(self, at: inverse.slot) }
    }

    /// Removes `target` from a to-many.
    func removeFromToMany(_ target: ManagedObject, slot: Int, maintainingInverse: Bool = true) {
        willChange(.toMany(slot))
        let inverse = maintainingInverse ? entity.layout.inverse(of: .toMany(slot)) : nil
        if deferEdit(slot: slot, { $0.remove(target.objectID) }) {
            if let inverse { target.inverseRemove(self, at: inverse.slot) }
            return
        }
        guard prepareToManyEdit(slot: slot), toManyValues[slot]?.remove(target.objectID) == true else { return }
        markChanged(.toMany(slot))
        if let inverse { target.inverseRemove(self, at: inverse.slot) }
    }

    /// Replaces a to-many's contents, in the given order (duplicates are dropped).
    func replaceToMany(slot: Int, with targets: [ManagedObject], maintainingInverse: Bool) {
        guard prepareToManyEdit(slot: slot), let current = toManyValues[slot]?.ids else { return }
        let newIDs = Set(targets.map(\.objectID))
        for id in current where !newIDs.contains(id) {
            if let object = relatedObject(id) {
                removeFromToMany(object, slot: slot, maintainingInverse: maintainingInverse)
            }
        }
        for target in targets {
            addToMany(target, slot: slot, maintainingInverse: maintainingInverse)
        }
        // Put the surviving and added objects in the requested order.
        if entity.layout.toManyRelationships[slot].isOrdered, let now = toManyValues[slot]?.ids {
            var seen = Set<ManagedObjectID>()
            let ordered = targets.map(\.objectID).filter { seen.insert($0).inserted }
            if now != ordered {
                willChange(.toMany(slot))
                toManyValues[slot] = ToManyValue(ordered)
                markChanged(.toMany(slot))
            }
        }
    }

    /// Moves the objects at `indexes` of an ordered to-many to start at `destination` (an index
    /// in the relationship without them), keeping their relative order.
    func moveInToMany(slot: Int, from indexes: IndexSet, to destination: Int) {
        willChange(.toMany(slot))
        guard prepareToManyEdit(slot: slot), toManyValues[slot]?.move(from: indexes, to: destination) == true else { return }
        markChanged(.toMany(slot))
    }

    // MARK: Inverse maintenance (called on the other side; no further inverse calls)

    /// `source` now points to `self` through the relationship whose inverse is `slot` (on self):
    /// make `slot` hold source. A to-one that held another object first detaches it from that
    /// object (one-to-one, or the to-one side of a one-to-many moving to a new owner).
    func inverseAdd(_ source: ManagedObject, at slot: PropertySlot) {
        switch slot {
        case .toOne(let index):
            fireFaultIfNeeded()
            guard index < toOneValues.count else { return }
            let previous = toOneValues[index]
            if previous == source.objectID { return }
            if let previous, let partnerSide = entity.layout.inverse(of: slot), let partner = relatedObject(previous) {
                partner.inverseRemove(self, at: partnerSide.slot)
            }
            willChange(slot)
            toOneValues[index] = source.objectID
            markChanged(slot)
        case .toMany(let index):
            willChange(slot)
            if deferEdit(slot: index, { $0.add(source.objectID) }) { return }
            guard prepareToManyEdit(slot: index), toManyValues[index]?.append(source.objectID) == true else { return }
            markChanged(slot)
        default:
            return
        }
    }

    /// `source` no longer points to `self`: drop it from `slot` (on self).
    func inverseRemove(_ source: ManagedObject, at slot: PropertySlot) {
        switch slot {
        case .toOne(let index):
            fireFaultIfNeeded()
            guard index < toOneValues.count, toOneValues[index] == source.objectID else { return }
            willChange(slot)
            toOneValues[index] = nil
            markChanged(slot)
        case .toMany(let index):
            willChange(slot)
            if deferEdit(slot: index, { $0.remove(source.objectID) }) { return }
            guard prepareToManyEdit(slot: index), toManyValues[index]?.remove(source.objectID) == true else { return }
            markChanged(slot)
        default:
            return
        }
    }

    /// Drops `source` from the inverse `inverse` (on self), by name (for callers holding a
    /// relationship description rather than a slot).
    func inverseRemove(_ source: ManagedObject, via inverse: RelationshipDescription) {
        guard let slot = entity.layout.slot(forKey: inverse.name) else { return }
        inverseRemove(source, at: slot)
    }

    // MARK: Fetched properties

    func fetchedPropertyValue(index: Int) -> [ManagedObject] {
        if let cached = fetchedValues[index] { return cached }
        let property = entity.layout.fetchedProperties[index]
        let result = link?.evaluateFetchedProperty(property, for: self) ?? []
        fetchedValues[index] = result
        return result
    }
}
