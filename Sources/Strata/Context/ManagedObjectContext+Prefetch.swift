import Foundation

/// Prefetching (`relationshipKeyPathsForPrefetching`): the objects at each relationship key
/// path of a fetch's results, loaded with one query per path step. On the context's queue.
extension ManagedObjectContext {
    /// Loads the objects at each relationship key path for all `objects`: one query per path
    /// step, never one per object. Call on the context's queue.
    func prefetch(_ keyPaths: [String], for objects: [ManagedObject]) throws {
        for keyPath in keyPaths {
            var level = objects
            for name in keyPath.split(separator: ".").map(String.init) {
                level = try prefetchStep(name, for: level)
                if level.isEmpty { break }
            }
        }
    }

    /// One step of a key path: fires the owners (their to-one keys are needed), loads the
    /// to-many contents they lack in one read, then the rows of every target that has none in
    /// one read. Each owner keeps its targets alive (through the step's shared
    /// `PrefetchedTargets`, or its own `prefetchedObjects`), so they fire without I/O while it
    /// is in use. Targets are found or created in one pass over the owners,
    /// deduplicated by object identity only where two owners can share one (a to-one, or a
    /// to-many whose inverse is not a to-one). Returns the targets, in first-seen order.
    private func prefetchStep(_ name: String, for objects: [ManagedObject]) throws -> [ManagedObject] {
        guard let first = objects.first else { return [] }
        guard let relationship = first.entity.layout.propertiesByName[name] as? RelationshipDescription else {
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot prefetch '\(name)': \(first.entity.name) has no relationship of that name", entityName: first.entity.name, key: name)
        }
        let parent = try requireParentStore()
        try fireForPrefetch(objects, parent: parent)
        // The members read with their contents, held until their owners hold them.
        var loadedMembers: [ManagedObject] = []
        if relationship.isToMany { loadedMembers = try loadToManyContents(name, relationship: relationship, of: objects, parent: parent) }
        let shared = !relationship.isToMany || relationship.inverseRelationship.map(\.isToMany) ?? true
        var seen = Set<ObjectIdentifier>()
        // At least one target an owner for a to-one (and most to-manys): room for them at once,
        // not a rehash at every doubling.
        if shared { seen.reserveCapacity(objects.count) }
        var result: [ManagedObject] = []
        var missing: [ManagedObjectID] = []
        // The last target: owners next to each other often share one (children fetched in key
        // order, inserted together, point at the same parent), and a repeat of it is then
        // known without the identity map's look-up and the set's hashing. It is kept by its
        // ID's key and space, and by an unretained reference: `result` holds every target of a
        // shared step (the last one was appended, or was seen and appended before) until the
        // step returns, so the repeat of a target costs no reference counting. (A repeat under
        // another space of the same entity takes the look-up, which finds the same object.)
        var lastTargetKey: Int64 = 0
        var lastTargetSpace: ObjectIdentifier?
        unowned(unsafe) var lastTargetObject: ManagedObject? = nil
        /// The object for a target ID (a new fault when unregistered), noted as missing its row.
        func target(_ id: ManagedObjectID) -> ManagedObject {
            if shared, let lastTargetObject, lastTargetKey == id.keyNumber, lastTargetSpace == ObjectIdentifier(id.space) { return lastTargetObject }
            let object = registeredOrFault(id)
            if shared {
                (lastTargetKey, lastTargetSpace, lastTargetObject) = (id.keyNumber, ObjectIdentifier(id.space), object)
                guard seen.insert(ObjectIdentifier(object)).inserted else { return object }
            }
            result.append(object)
            if object.isFaultStorage && object.snapshot == nil && !id.isTemporaryID { missing.append(id) }
            return object
        }
        // Every owner holds the step's targets through one shared array (`targets`); an owner
        // that cannot (a fault, or one holding an earlier step's) keeps its own in its side record.
        let targets = PrefetchedTargets()
        // The relationship's slot, looked up by name once per entity (the owners mostly share
        // one). The entity is told by identity, which takes no reference to it or its layout
        // (the owners hold their entities alive).
        var lastEntity: ObjectIdentifier?
        var propertySlot: PropertySlot?
        for object in objects {
            let entity = ObjectIdentifier(object.entity)
            if entity != lastEntity {
                lastEntity = entity
                propertySlot = object.entity.layout.slot(forKey: name)
            }
            switch propertySlot {
            case .toMany(let slot)? where slot < object.toManyValues.count:
                guard let ids = object.toManyValues[slot]?.ids, !ids.isEmpty else { continue }
                if object.holdPrefetched(targets) {
                    for id in ids { _ = target(id) }
                } else {
                    var neighbours = object.prefetchedObjects
                    neighbours.reserveCapacity(neighbours.count + ids.count)
                    for id in ids { neighbours.append(target(id)) }
                    object.prefetchedObjects = neighbours
                }
            case .toOne(let slot)? where slot < object.toOneValues.count:
                // A repeat of the last target is told in place, without a copy of the ID.
                if let lastTargetObject, let lastTargetSpace, object.toOneValues.target(at: slot, hasKey: lastTargetKey, inSpace: lastTargetSpace) {
                    if !object.holdPrefetched(targets) { object.prefetchedObjects.append(lastTargetObject) }
                    continue
                }
                guard let id = object.toOneValues[slot] else { continue }
                if object.holdPrefetched(targets) {
                    _ = target(id)
                } else {
                    object.prefetchedObjects.append(target(id))
                }
            default:
                break
            }
        }
        targets.objects = result
        withExtendedLifetime(loadedMembers) {}
        // The targets' rows in one read; their faults then fire without I/O.
        if !missing.isEmpty {
            for row in try parent.snapshots(for: missing, options: .default) { _ = register(row, asFault: true, refresh: false) }
        }
        return result
    }

    /// Fires the faults among `objects`, loading the rows of those without one in one read.
    private func fireForPrefetch(_ objects: [ManagedObject], parent: any ParentStore) throws {
        var unfilled: [ManagedObjectID] = []
        for object in objects where object.isFaultStorage && object.snapshot == nil { unfilled.append(object.objectID) }
        if !unfilled.isEmpty {
            for row in try parent.snapshots(for: unfilled, options: .default) { _ = register(row, asFault: true, refresh: false) }
        }
        realise(objects)
    }

    /// Loads the to-many `name` of every object in `objects` that has not loaded it, with the
    /// members' rows, in one read where the store can; each owner gets one `ToManyValue`, also
    /// its committed contents when it has none. Returns the members registered from the rows
    /// (the caller holds them until their owners do).
    private func loadToManyContents(_ name: String, relationship: RelationshipDescription, of objects: [ManagedObject], parent: any ParentStore) throws -> [ManagedObject] {
        var owners: [ManagedObject] = []
        var slots: [Int] = []
        for object in objects {
            guard case .toMany(let slot)? = object.entity.layout.slot(forKey: name), slot < object.toManyValues.count, object.toManyValues[slot] == nil, !object.objectID.isTemporaryID
            else { continue }
            owners.append(object)
            slots.append(slot)
        }
        guard !owners.isEmpty else { return [] }
        let loaded = try parent.toManyRows(of: owners.map(\.objectID), relationship: relationship, options: .default)
        var members: [ManagedObject] = []
        members.reserveCapacity(loaded.rows.count)
        for row in loaded.rows { members.append(register(row, asFault: true, refresh: false)) }
        for (index, owner) in owners.enumerated() {
            let value = ToManyValue(index < loaded.members.count ? loaded.members[index] : [])
            let slot = slots[index]
            owner.toManyValues[slot] = value
            if slot < owner.committedToMany.count, owner.committedToMany[slot] == nil { owner.committedToMany[slot] = value }
        }
        return members
    }
}
