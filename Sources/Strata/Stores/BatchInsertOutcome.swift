import Foundation

/// What a store's batch insert did: how many rows it wrote (inserted, or updated through a
/// uniqueness constraint) and, when the plan asks for them, their IDs.
struct BatchInsertOutcome {
    /// Rows written: one per row of the plan.
    var count = 0
    /// The written rows' IDs in the plan's row order (when the plan asks for them): a new row's
    /// ID, or the ID of the existing row an upsert updated.
    var ids: [ManagedObjectID] = []
    /// Those of ``ids`` that name existing rows the insert updated (upserts).
    var updatedIDs: [ManagedObjectID] = []
}

extension BatchInsertPlan {
    /// Runs the insert as one save: each row that matches a stored row on one of the plan's
    /// uniqueness constraints becomes an update of that row (every attribute of the entity
    /// takes the row's value, relationships stay, the version is bumped, with optimistic
    /// locking), every other row an insert under a new primary key. A save that another
    /// changed in between fails with a conflict, and the whole insert runs again on fresh rows
    /// (a few times at most). For stores without an upsert statement (the in-memory store and
    /// stores written against the public seam). With constraints it reads every row of each
    /// constraint's entity tree once per attempt: O(rows of the tree + rows inserted). `origin`
    /// goes with the change set (a store that tracks history records it).
    func runByRows(on backend: any StoreBackend, origin: TransactionOrigin) throws -> BatchInsertOutcome {
        guard count > 0 else { return BatchInsertOutcome() }
        let attempts = 8
        let allSlots = Array(0..<width)
        let noToOnes = ToOneValues(repeating: nil, count: entity.layout.toOneRelationships.count)
        for attempt in 1...attempts {
            let matches = try existingMatches(on: backend)
            let keys = try backend.allocatePrimaryKeys(for: entity, count: matches.reduce(0) { $0 + ($1 == nil ? 1 : 0) })
            var changes = StoreChangeSet()
            changes.origin = origin
            var outcome = BatchInsertOutcome(count: count)
            var next = 0
            let space = backend.token.space(for: entity)
            for row in 0..<count {
                let attributes = StoredValues(attributes(ofRow: row))
                if let existing = matches[row] {
                    changes.updates.append(
                        RowChange(
                            objectID: existing.objectID, baseVersion: existing.version, attributes: attributes, toOne: existing.toOne, changedAttributeSlots: allSlots,
                            changedToOneSlots: [], base: existing))
                    if returnsObjectIDs {
                        outcome.ids.append(existing.objectID)
                        outcome.updatedIDs.append(existing.objectID)
                    }
                } else {
                    let id = ManagedObjectID(space: space, primaryKey: keys[next])
                    next += 1
                    changes.inserts.append(
                        RowChange(objectID: id, baseVersion: 0, attributes: attributes, toOne: noToOnes, changedAttributeSlots: allSlots, changedToOneSlots: [], base: nil))
                    if returnsObjectIDs { outcome.ids.append(id) }
                }
            }
            do {
                _ = try backend.save(changes)
                return outcome
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge && attempt < attempts {
                continue  // a save changed a matched row in between: read again
            }
        }
        throw StrataError(
            code: StrataError.Code.managedObjectMerge, message: "Batch insert of \(entity.name): other saves kept changing the rows it updates; nothing was inserted", entityName: entity.name)
    }

    /// For each row, the stored row it updates (nil: a new row). Throws a constraint conflict
    /// (133021) for a row that matches two stored rows, or a stored row of another entity
    /// (a batch insert updates rows of its own entity only, as the SQLite store's upsert does).
    private func existingMatches(on backend: any StoreBackend) throws -> [RowSnapshot?] {
        var matches = [RowSnapshot?](repeating: nil, count: count)
        guard !constraints.isEmpty else { return matches }
        var rowsByOwner: [ObjectIdentifier: [RowSnapshot]] = [:]
        var indexes: [[[StoredValue]: RowSnapshot]] = []
        for constraint in constraints {
            let owner = ObjectIdentifier(constraint.owner)
            if rowsByOwner[owner] == nil {
                let plan = try FetchPlan.make(
                    entity: constraint.owner, predicate: nil, sortDescriptors: [], limit: 0, offset: 0, includesSubentities: true, resultKind: .rows)
                rowsByOwner[owner] = try backend.fetchRows(plan, options: .default)
            }
            var index: [[StoredValue]: RowSnapshot] = [:]
            for row in rowsByOwner[owner] ?? [] {
                var key: [StoredValue] = []
                for slot in constraint.slots {
                    let value = slot < row.attributes.count ? row.attributes[slot] : .null
                    if value.isNull { break }
                    key.append(value)
                }
                if key.count == constraint.slots.count { index[key] = row }
            }
            indexes.append(index)
        }
        for row in 0..<count {
            var match: RowSnapshot?
            for (position, constraint) in constraints.enumerated() {
                guard let key = key(of: constraint, row: row), let existing = indexes[position][key] else { continue }
                if let match, match.objectID != existing.objectID {
                    throw conflict(row: row, "matches two stored rows through two uniqueness constraints", constraint: constraint, conflictingObjectID: existing.objectID)
                }
                if existing.objectID.entity !== entity {
                    throw conflict(
                        row: row, "matches a stored \(existing.objectID.entity.name) on \(constraint.keys), which a batch insert of \(entity.name) cannot update", constraint: constraint,
                        conflictingObjectID: existing.objectID)
                }
                match = existing
            }
            matches[row] = match
        }
        return matches
    }
}
