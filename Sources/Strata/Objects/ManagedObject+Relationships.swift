import Foundation

/// Relationship edits with inverse maintenance: setting one side updates the other side at once,
/// including removal from the old partner's collection (Core Data's behaviour).
extension ManagedObject {
    /// Checks that `value` can be the target of a to-one relationship: nil, or an object of the
    /// destination entity (or a sub-entity) in the same context.
    func relationshipTarget(_ value: Any?, relationship: RelationshipDescription) -> ManagedObject?? {
        guard let unwrapped = AttributeCodec.unwrapOptional(value) else { return .some(nil) }
        guard let target = unwrapped as? ManagedObject else {
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' is a to-one relationship; it cannot hold a value of type \(type(of: unwrapped))", entityName: entity.name, key: relationship.name, objectID: objectID))
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
                record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' is a to-many relationship; it needs a Set or Array of objects, not \(type(of: unwrapped))", entityName: entity.name, key: relationship.name, objectID: objectID))
                return nil
            }
        }
        for object in objects where !checkTarget(object, relationship: relationship) { return nil }
        return objects
    }

    private func checkTarget(_ target: ManagedObject, relationship: RelationshipDescription) -> Bool {
        guard let destination = relationship.destinationEntity, target.entity.isKindOf(entity: destination) else {
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' needs objects of entity '\(relationship.destinationEntityName ?? "?")', not '\(target.entity.name)'", entityName: entity.name, key: relationship.name, objectID: objectID))
            return false
        }
        guard let link, target.link === link else {
            record(StrataError(code: StrataError.Code.managedObjectExternalRelationship, message: "'\(entity.name).\(relationship.name)' cannot point to an object of another context (or of none); fetch it into this context with object(with:) first", entityName: entity.name, key: relationship.name, objectID: objectID))
            return false
        }
        if target.change == .deleted {
            record(StrataError(code: StrataError.Code.managedObjectValidation, message: "'\(entity.name).\(relationship.name)' cannot point to a deleted \(target.entity.name)", entityName: entity.name, key: relationship.name, objectID: objectID))
            return false
        }
        return true
    }

    // MARK: To-one

    func setToOne(_ target: ManagedObject?, slot: Int, maintainingInverse: Bool) {
        fireFaultIfNeeded()
        guard slot < toOneValues.count else { return }
        let oldID = toOneValues[slot]
        let newID = target?.objectID
        if oldID == newID { return }
        toOneValues[slot] = newID
        markChanged(.toOne(slot))
        let relationship = entity.layout.toOneRelationships[slot]
        guard maintainingInverse, let inverse = relationship.inverseRelationship else { return }
        if let oldID, let old = link?.objectForRelationship(oldID) {
            old.inverseRemove(self, via: inverse)
        }
        target?.inverseAdd(self, via: inverse)
    }

    // MARK: To-many

    /// Loads a to-many relationship's IDs if they are not loaded yet.
    func ensureToManyLoaded(slot: Int) {
        guard slot < toManyValues.count, toManyValues[slot] == nil else { return }
        let relationship = entity.layout.toManyRelationships[slot]
        let ids: [ManagedObjectID]
        if change == .inserted || objectID.isTemporaryID {
            ids = []
        } else {
            ids = link?.loadToMany(of: self, relationship: relationship) ?? []
        }
        let value = ToManyValue(ids)
        toManyValues[slot] = value
        if slot < committedToMany.count, committedToMany[slot] == nil { committedToMany[slot] = value }
    }

    /// The objects of a to-many relationship, in order.
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

    /// Adds `target` to a to-many (at `index` for ordered ones, else at the end).
    func addToMany(_ target: ManagedObject, slot: Int, at index: Int? = nil, maintainingInverse: Bool = true) {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count else { return }
        // Mutate in place (optional chaining through the subscript): no copy of the contents.
        let added = index.map { toManyValues[slot]?.insert(target.objectID, at: $0) } ?? toManyValues[slot]?.append(target.objectID)
        guard added == true else { return }
        markChanged(.toMany(slot))
        let relationship = entity.layout.toManyRelationships[slot]
        if maintainingInverse, let inverse = relationship.inverseRelationship {
            target.inverseAdd(self, via: inverse)
        }
    }

    /// Removes `target` from a to-many.
    func removeFromToMany(_ target: ManagedObject, slot: Int, maintainingInverse: Bool = true) {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count, toManyValues[slot]?.remove(target.objectID) == true else { return }
        markChanged(.toMany(slot))
        let relationship = entity.layout.toManyRelationships[slot]
        if maintainingInverse, let inverse = relationship.inverseRelationship {
            target.inverseRemove(self, via: inverse)
        }
    }

    /// Replaces a to-many's contents, in the given order.
    func replaceToMany(slot: Int, with targets: [ManagedObject], maintainingInverse: Bool) {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count, let current = toManyValues[slot] else { return }
        let newIDs = Set(targets.map(\.objectID))
        for id in current.ids where !newIDs.contains(id) {
            if let object = link?.objectForRelationship(id) {
                removeFromToMany(object, slot: slot, maintainingInverse: maintainingInverse)
            }
        }
        for target in targets {
            addToMany(target, slot: slot, maintainingInverse: maintainingInverse)
        }
        // Put the surviving and added objects in the requested order.
        if entity.layout.toManyRelationships[slot].isOrdered, let current = toManyValues[slot] {
            var seen = Set<ManagedObjectID>()
            let ordered = targets.map(\.objectID).filter { seen.insert($0).inserted }
            if current.ids != ordered {
                toManyValues[slot] = ToManyValue(ordered)
                markChanged(.toMany(slot))
            }
        }
    }

    /// Moves objects of an ordered to-many.
    func moveInToMany(slot: Int, from indexes: IndexSet, to destination: Int) {
        ensureToManyLoaded(slot: slot)
        guard slot < toManyValues.count, let before = toManyValues[slot]?.ids else { return }
        toManyValues[slot]?.move(from: indexes, to: destination)
        guard toManyValues[slot]?.ids != before else { return }
        markChanged(.toMany(slot))
    }

    // MARK: Inverse maintenance (called on the other side; no further inverse calls)

    /// `source` now points to `self` through `inverse`'s inverse: make `inverse` (on self) hold source.
    func inverseAdd(_ source: ManagedObject, via inverse: RelationshipDescription) {
        guard let slot = entity.layout.slots[inverse.name] else { return }
        switch slot {
        case .toOne(let index):
            fireFaultIfNeeded()
            guard index < toOneValues.count else { return }
            let previous = toOneValues[index]
            if previous == source.objectID { return }
            // One-to-one, or the to-one side of a one-to-many moving to a new owner: detach from
            // the previous partner first.
            if let previous, let partnerRelationship = inverse.inverseRelationship, let partner = link?.objectForRelationship(previous) {
                partner.inverseRemove(self, via: partnerRelationship)
            }
            toOneValues[index] = source.objectID
            markChanged(slot)
        case .toMany(let index):
            ensureToManyLoaded(slot: index)
            guard index < toManyValues.count, toManyValues[index]?.append(source.objectID) == true else { return }
            markChanged(slot)
        default:
            return
        }
    }

    /// `source` no longer points to `self`: drop it from `inverse` (on self).
    func inverseRemove(_ source: ManagedObject, via inverse: RelationshipDescription) {
        guard let slot = entity.layout.slots[inverse.name] else { return }
        switch slot {
        case .toOne(let index):
            fireFaultIfNeeded()
            guard index < toOneValues.count, toOneValues[index] == source.objectID else { return }
            toOneValues[index] = nil
            markChanged(slot)
        case .toMany(let index):
            ensureToManyLoaded(slot: index)
            guard index < toManyValues.count, toManyValues[index]?.remove(source.objectID) == true else { return }
            markChanged(slot)
        default:
            return
        }
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
