import Foundation
import StrataSQLite

/// Batch deletes on SQLite: the program of `BatchDeleteStatements`, run in one write transaction.
extension SQLiteStore {
    /// Runs `plan`'s delete with the model's delete rules; a `deny` relationship that holds a
    /// row that stays rolls everything back (a 1600 error naming the object and the
    /// relationship). With history tracking on, the program returns the deleted rows and the
    /// partners that lost one, and the delete is recorded in the same transaction: a delete per
    /// row (with its tombstone: the deleted rows are read first when an entity keeps values in
    /// history) and an update per partner naming its relationships that lost a row. Callable
    /// from any thread.
    func batchDelete(_ plan: BatchDeletePlan, origin: TransactionOrigin) throws -> BatchDeleteOutcome {
        if configuration.refusesWrites { throw readOnlyError() }
        var plan = plan
        if tracksHistory {
            plan.returnsObjectIDs = true
            plan.returnsChangedIDs = true
            plan.readsDeletedRows = plan.rules.deletable.contains { !$0.layout.preservedAttributeSlots.isEmpty }
        }
        var selection: SQLFragment?
        if case .matching(let rows) = plan.selection { selection = try fetchSQL.objectIDs(rows) }
        let program = try BatchDeleteStatements(schema: schema).program(for: plan, selection: selection)
        return try inWriteTransaction("Batch delete of \(plan.entity.name)") { connection in
            noteBatchMayDropReferences(plan.rules.deletable)
            let outcome = try run(program, plan: plan, on: connection)
            if tracksHistory {
                let history =
                    outcome.deleted.map { HistoryChangeRecord(objectID: $0, type: .delete, tombstone: outcome.tombstones[$0]) }
                    + outcome.changed.map { HistoryChangeRecord(objectID: $0, type: .update, updatedProperties: outcome.changedProperties[$0]) }
                try recordHistory(history, origin: origin, on: connection)
            }
            return outcome
        }
    }

    private func run(_ program: BatchDeleteProgram, plan: BatchDeletePlan, on connection: SQLiteConnection) throws -> BatchDeleteOutcome {
        var outcome = BatchDeleteOutcome()
        var spaces = StoreIDSpaces(token: token)
        func id(_ row: SQLiteStatement) -> ManagedObjectID {
            spaces.id(model.entity(forCode: row.int64(at: 1)) ?? plan.entity, primaryKey: row.int64(at: 0))
        }
        if let direct = program.direct {
            let statement = try connection.cachedStatement(direct.text)
            if plan.returnsObjectIDs {
                try statement.forEachRow(direct.bindings.sqliteValues) { outcome.deleted.append(id($0)) }
                outcome.count = outcome.deleted.count
            } else {
                try statement.execute(direct.bindings.sqliteValues)
                outcome.count = connection.changes
            }
            return outcome
        }
        for sql in program.setup { try connection.cachedStatement(sql).execute() }
        if let seed = program.seed { try connection.cachedStatement(seed.text).execute(seed.bindings.sqliteValues) }
        var step: Int64 = 1
        var added = true
        while added && !program.cascadeSteps.isEmpty {
            added = false
            for sql in program.cascadeSteps {
                try connection.cachedStatement(sql).execute([.integer(step)])
                if connection.changes > 0 { added = true }
            }
            step += 1
        }
        for check in program.denyChecks {
            var blocked: ManagedObjectID?
            try connection.cachedStatement(check.sql).forEachRow { blocked = id($0) }
            if let blocked {
                // Thrown inside the transaction: it rolls back, nothing is deleted.
                throw StrataError(
                    code: StrataError.Code.validationRelationshipDeniedDelete,
                    message:
                        "Batch delete of \(plan.entity.name): \(blocked.entity.name) \(blocked.uriRepresentation().absoluteString) cannot be deleted: its relationship '\(check.relationship.name)' still holds an object that is not deleted (delete rule deny); nothing was deleted",
                    entityName: blocked.entity.name, key: check.relationship.name, objectID: blocked, url: url)
            }
        }
        var changed: [ManagedObjectID] = []
        for update in program.partnerUpdates {
            let statement = try connection.cachedStatement(update.sql)
            if plan.returnsChangedIDs {
                try statement.forEachRow { row in
                    let partner = id(row)
                    if outcome.changedProperties[partner] == nil { changed.append(partner) }
                    outcome.changedProperties[partner, default: []].append(update.property)
                }
            } else {
                try statement.execute()
            }
        }
        for sql in program.joinRowDeletes { try connection.cachedStatement(sql).execute() }
        for sql in program.deletedKeys {
            try connection.cachedStatement(sql).forEachRow { outcome.deleted.append(id($0)) }
        }
        if plan.readsDeletedRows {
            outcome.tombstones = try historyTombstones(of: outcome.deleted.map { RowDeletion(objectID: $0, baseVersion: 0) }, on: connection)
        }
        for sql in program.deletes {
            try connection.cachedStatement(sql).execute()
            outcome.count += connection.changes
        }
        for sql in program.clears { try connection.cachedStatement(sql).execute() }
        outcome.changed = changed
        return outcome
    }
}
