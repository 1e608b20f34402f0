import Foundation
import StrataSQLite

/// Batch inserts on SQLite: one write transaction, one prepared `INSERT` (an upsert with
/// uniqueness constraints) run once per row.
extension SQLiteStore {
    /// Writes every row of `plan` (see `BatchInsertStatements`): the primary keys of all rows
    /// are taken from `Z_PRIMARYKEY` at once, inside the transaction (a row that updates an
    /// existing row leaves its key unused). A row that matches a stored row of another entity,
    /// or whose update would collide with a third row, is a constraint conflict (133021) and
    /// rolls the whole insert back. With history tracking on, the insert is recorded (an insert
    /// per new row, an update naming every attribute per upserted row) in the same transaction;
    /// with constraints, the statement then returns each written row's key to tell the two
    /// apart. Callable from any thread.
    func batchInsert(_ plan: BatchInsertPlan, origin: TransactionOrigin) throws -> BatchInsertOutcome {
        if configuration.refusesWrites { throw readOnlyError() }
        guard plan.count > 0 else { return BatchInsertOutcome() }
        let tracking = tracksHistory
        let (sql, returnsKey) = try BatchInsertStatements(schema: schema).insert(plan, returningKeys: tracking)
        let upserts = !plan.constraints.isEmpty
        let entity = plan.entity
        return try inWriteTransaction("Batch insert of \(entity.name)") { connection in
            let keys = try allocate(plan.count, for: entity, on: connection)
            let statement = try connection.cachedStatement(sql)
            var outcome = BatchInsertOutcome(count: plan.count)
            if plan.returnsObjectIDs { outcome.ids.reserveCapacity(plan.count) }
            var history: [HistoryChangeRecord] = []
            if tracking { history.reserveCapacity(plan.count) }
            let updatedNames = entity.layout.storedAttributes.map(\.name)
            let width = plan.width
            let externalSlots = externalSQL.externalSlots(of: entity)
            if upserts { noteBatchMayDropReferences([entity]) }
            let space = token.space(for: entity)
            for row in 0..<plan.count {
                let key = keys[row]
                statement.bind(int64: key, at: 1)
                for slot in 0..<width {
                    try statement.bind(try columnValue(plan.value(row: row, slot: slot), slot: slot, externalSlots: externalSlots), at: Int32(slot + 2))
                }
                var written: Int64? = key
                do {
                    if returnsKey {
                        written = nil
                        while try statement.step() { written = statement.int64(at: 0) }
                    } else {
                        while try statement.step() {}
                    }
                } catch let error as SQLiteError where error.isConstraintViolation {
                    throw constraintFailure(error, while: "Batch insert of \(entity.name): row \(row)", entity: entity, objectID: nil)
                }
                statement.reset()
                guard let written, !upserts || connection.changes > 0 else {
                    // The upsert's `WHERE Z_ENT = …` kept it from changing a row of another entity.
                    throw plan.conflict(
                        row: row, "matches a stored row of another entity on a uniqueness constraint, which a batch insert of \(entity.name) cannot update",
                        constraint: nil, conflictingObjectID: nil)
                }
                guard plan.returnsObjectIDs || tracking else { continue }
                let id = ManagedObjectID(space: space, primaryKey: written)
                if plan.returnsObjectIDs {
                    outcome.ids.append(id)
                    if written != key { outcome.updatedIDs.append(id) }
                }
                if tracking {
                    history.append(written == key ? HistoryChangeRecord(objectID: id, type: .insert) : HistoryChangeRecord(objectID: id, type: .update, updatedProperties: updatedNames))
                }
            }
            try recordHistory(history, origin: origin, on: connection)
            return outcome
        }
    }
}
