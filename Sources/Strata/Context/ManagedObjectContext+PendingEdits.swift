import Foundation

/// What a save needs from objects that were edited only through their relationships.
extension ManagedObjectContext {
    /// Relationship edits do not load anything they do not need: an object whose unloaded,
    /// unordered to-many gains or loses a member (usually through inverse maintenance) stays a
    /// fault and records the edit (see `ToManyDelta`). Before a save validates and writes, this
    /// loads in batches what that left out: the rows of updated objects that are still faults
    /// (their values and row version: one query), and the contents of every to-many with
    /// recorded edits, with the edits applied (one query per relationship). Called by `save()`
    /// on the context's queue; a failure fails the save and changes nothing.
    func loadPendingRelationshipEdits() throws {
        let updatedFaults = state.work.updated.filter(\.isFaultStorage)
        if !updatedFaults.isEmpty {
            let unloaded = updatedFaults.filter { $0.snapshot == nil && !$0.objectID.isTemporaryID }.map(\.objectID)
            if !unloaded.isEmpty {
                for row in try requireParentStore().snapshots(for: unloaded, options: .default) {
                    if let object = state.registry.object(for: row.objectID), object.isFaultStorage, object.snapshot == nil {
                        object.snapshot = row
                        object.faultBatch = nil
                    }
                }
            }
            // Fires from the rows just loaded; a row that is gone turns its object deleted.
            for object in updatedFaults { object.fireFaultIfNeeded() }
        }
        var groups: [ObjectIdentifier: (relationship: RelationshipDescription, slot: Int, owners: [ManagedObject])] = [:]
        for set in [state.work.inserted, state.work.updated] {
            for object in set where object.hasPendingToManyEdits {
                let relationships = object.entity.layout.toManyRelationships
                for slot in object.pendingToMany.keys where slot < relationships.count {
                    let relationship = relationships[slot]
                    groups[ObjectIdentifier(relationship), default: (relationship, slot, [])].owners.append(object)
                }
            }
        }
        for group in groups.values {
            let unloaded = group.owners.filter { $0.toManyValues[group.slot] == nil }
            let loaded = unloaded.isEmpty ? [:] : try requireParentStore().toManyIDs(of: unloaded.map(\.objectID), relationship: group.relationship, options: .default)
            for owner in group.owners {
                if owner.toManyValues[group.slot] == nil {
                    owner.installLoadedToMany(slot: group.slot, ids: loaded[owner.objectID] ?? [])
                } else {
                    owner.ensureToManyLoaded(slot: group.slot)  // applies the edits
                }
            }
        }
    }
}
