import Foundation
import StrataSQLite

/// Batch updates on SQLite: one `UPDATE … RETURNING` in one write transaction.
extension SQLiteStore {
    /// Runs `plan` as one statement (see `BatchUpdateStatements`); when an assignment's new
    /// values need a range check, a value out of range rolls the whole statement back before
    /// anything is committed. With history tracking on, the statement returns every updated
    /// row's key and the update is recorded (one update change per row, naming the assigned
    /// attributes) in the same transaction. Callable from any thread.
    func batchUpdate(_ plan: BatchUpdatePlan, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        if configuration.refusesWrites { throw readOnlyError() }
        let (sql, returnsRows, checked) = try BatchUpdateStatements(schema: schema).update(plan, returningKeys: tracksHistory)
        return try inWriteTransaction("Batch update of \(plan.rows.entity.name)") { connection in
            var outcome = BatchUpdateOutcome()
            let statement = try connection.cachedStatement(sql.text)
            let bindings = try externalBindings(sql.bindings, of: plan)
            guard returnsRows else {
                try statement.execute(bindings)
                outcome.count = connection.changes
                return outcome
            }
            let fallback = plan.rows.entity
            var failure: StrataError?
            var history: [HistoryChangeRecord] = []
            let updatedNames = plan.assignments.map(\.attribute.name)
            var spaces = StoreIDSpaces(token: token)
            try statement.forEachRow(bindings) { row in
                outcome.count += 1
                let entity = model.entity(forCode: row.int64(at: 1)) ?? fallback
                let id = spaces.id(entity, primaryKey: row.int64(at: 0))
                if plan.returnsObjectIDs { outcome.ids.append(id) }
                if tracksHistory { history.append(HistoryChangeRecord(objectID: id, type: .update, updatedProperties: updatedNames)) }
                guard failure == nil else { return }
                for (column, index) in checked.enumerated() {
                    let assignment = plan.assignments[index]
                    do {
                        try BatchUpdatePlan.checkRange(row.storedValue(at: Int32(2 + column)), for: assignment.attribute) { message, key in
                            StrataError(code: StrataError.Code.managedObjectValidation, message: message, entityName: entity.name, key: key, objectID: id)
                        }
                    } catch let error as StrataError {
                        failure = error
                    }
                }
            }
            // Thrown inside the transaction: it rolls back, nothing is written.
            if let failure { throw failure }
            try recordHistory(history, origin: origin, on: connection)
            return outcome
        }
    }

    /// The statement's bindings with every large constant assigned to an attribute that stores
    /// externally written to a file and bound as its reference (inside the transaction); the
    /// values the update replaces are compared with the files after it (see
    /// `SQLiteStore+External.swift`).
    private func externalBindings(_ bindings: [StoredValue], of plan: BatchUpdatePlan) throws -> [SQLiteValue] {
        let assigned = plan.assignments.filter { ExternalBinaryReference.mayHoldReferences($0.attribute) }
        guard !assigned.isEmpty else { return bindings.sqliteValues }
        external.noteSweepAll()
        var large = Set<Data>()
        for assignment in assigned where ExternalBinaryReference.storesExternally(assignment.attribute) {
            if case .constant(.blob(let data), _) = assignment.value, data.count >= external.threshold { large.insert(data) }
        }
        guard !large.isEmpty else { return bindings.sqliteValues }
        var references: [Data: SQLiteValue] = [:]
        return try bindings.map { value in
            guard case .blob(let data) = value, large.contains(data) else { return value.sqliteValue }
            if let reference = references[data] { return reference }
            let reference = SQLiteValue.text(ExternalBinaryReference.text(hash: try external.write(data)))
            references[data] = reference
            return reference
        }
    }
}
