import Foundation

/// What a store's batch update did: how many rows it updated and, when the plan asks for
/// them, their IDs.
struct BatchUpdateOutcome {
    var count = 0
    var ids: [ManagedObjectID] = []
}

extension BatchUpdatePlan {
    /// Runs the update by reading the matching rows and saving their new values as one change
    /// set with optimistic locking: a row another save changed in between makes the save fail
    /// with a conflict, and the whole update runs again on fresh rows (a few times at most).
    /// For stores without an `UPDATE` statement (the in-memory store and stores written against
    /// the public seam). `store` follows the rows' relationships for key paths in the
    /// expressions; `origin` goes with the change set (a store that tracks history records it).
    func runByRows(on backend: any StoreBackend, store: IncrementalStore, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        let attempts = 8
        for attempt in 1...attempts {
            let matching = try backend.fetchRows(rows, options: .default)
            let resolver = NodeResolver(store: store, options: .default)
            var changes = StoreChangeSet()
            changes.origin = origin
            changes.updates.reserveCapacity(matching.count)
            let slots = assignments.map(\.slot)
            for row in matching {
                let evaluated = NodeRow(node: row, resolver: resolver)
                var attributes = row.attributes
                for assignment in assignments where assignment.slot < attributes.count {
                    attributes[assignment.slot] = try newValue(assignment, for: evaluated)
                }
                if let error = resolver.error { throw error }
                changes.updates.append(
                    RowChange(
                        objectID: row.objectID, baseVersion: row.version, attributes: attributes, toOne: row.toOne, changedAttributeSlots: slots,
                        changedToOneSlots: [], base: row))
            }
            do {
                _ = try backend.save(changes)
                return BatchUpdateOutcome(count: matching.count, ids: returnsObjectIDs ? matching.map(\.objectID) : [])
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge && attempt < attempts {
                continue  // a save changed a matching row in between: read again
            }
        }
        throw StrataError(
            code: StrataError.Code.managedObjectMerge, message: "Batch update of \(rows.entity.name): other saves kept changing the matching rows; nothing was updated",
            entityName: rows.entity.name)
    }
}
