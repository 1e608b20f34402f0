import Foundation
import Strata
import StrataLocks
import StrataPostgreSQL

/// What a PostgreSQL store knows of its namespace's history once open. Guarded by
/// ``PostgreSQLStore/historyState``.
struct PostgreSQLHistoryState {
    /// Whether the history's tables exist (a read-only store opened with tracking on a
    /// namespace that never kept a history has none, and reads an empty history).
    var tablesExist = false
    /// Whether the namespace keeps a history but the store was added without tracking: it is
    /// then read-only, as in Core Data, so that the history has no holes.
    var keptWithoutTracking = false
}

/// The persistent history of a PostgreSQL store (`PersistentStoreOption.persistentHistoryTracking`),
/// kept in the tables `PostgreSQLHistoryTables` describes and written in the transaction of
/// the save or batch request it records, so it lands exactly when the data does.
///
/// Transaction numbers rise in commit order across every process writing the namespace: a
/// writing transaction takes its number from the sequence only at its end, under a
/// transaction-level advisory lock that the commit releases, after checking its deferred
/// foreign keys (so that nothing it does while holding the lock can wait for another writer).
/// A reader that saw transaction N therefore never sees a smaller number commit later — a
/// history token is a safe place to resume from on every server. Writers serialize only for
/// that last step.
extension PostgreSQLStore {
    /// Creates the history's tables when the store tracks history and they are missing (not
    /// for a read-only store), and notes whether the namespace keeps a history the store does
    /// not track. Runs in the opening transaction, under its advisory lock.
    func prepareHistory(on connection: PostgreSQLConnection) throws {
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", parameters: [.text(schema.history.transactions)]).first?.bool(0) ?? false
        if tracksHistory && !exists && !isReadOnly {
            for statement in schema.history.creationStatements { try connection.execute(statement) }
        }
        historyState.withLock { state in
            state.tablesExist = exists || (tracksHistory && !isReadOnly)
            state.keptWithoutTracking = exists && !tracksHistory
        }
    }

    /// Throws 134030 when the store may not be written: added read-only, or added without
    /// history tracking to a namespace that keeps a history. Any thread.
    func checkWritable() throws {
        if isReadOnly { throw readOnlyError() }
        if historyState.withLock({ $0.keptWithoutTracking }) {
            throw StrataError(
                code: StrataError.Code.persistentStoreSave,
                message:
                    "The PostgreSQL namespace '\(schema.namespace)' keeps a persistent history but the store was added without PersistentStoreOption.persistentHistoryTracking: it is read-only (as in Core Data), so its history has no holes. Add it with the option set to true",
                url: redactedURL)
        }
    }

    /// Records one transaction holding `changes` (nothing when empty or when the store does not
    /// track history) and returns its number. Called last in a writing transaction, on its
    /// connection.
    func recordHistory(_ changes: [StoreHistoryChange], author: String?, contextName: String?, on connection: PostgreSQLConnection) throws -> Int64? {
        guard tracksHistory, !changes.isEmpty else { return nil }
        var rows: [[String: Any]] = []
        rows.reserveCapacity(changes.count)
        for change in changes {
            guard let key = referenceObject(for: change.objectID) else { continue }
            var row: [String: Any] = ["e": change.objectID.entity.name, "k": key, "t": change.changeType.rawValue]
            if let names = change.updatedProperties { row["p"] = try PostgreSQLHistoryCoding.encode(properties: names) }
            if let tombstone = change.tombstone { row["s"] = try PostgreSQLHistoryCoding.encode(tombstone: tombstone, of: change.objectID.entity) }
            rows.append(row)
        }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
        // Deferred foreign keys are checked now, so that nothing after the lock waits for rows.
        try connection.execute("SET CONSTRAINTS ALL IMMEDIATE")
        try connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", parameters: [.text("strata-history:" + schema.namespace)])
        let history = schema.history
        guard let number = try connection.execute("SELECT nextval($1::regclass)", parameters: [.text(history.numberSequence)]).first?.int64(0) else {
            throw StrataError(code: StrataError.Code.persistentStoreSave, message: "The history sequence of the PostgreSQL store returned no number", url: redactedURL)
        }
        try connection.execute(
            """
            INSERT INTO \(history.transactions) (number, "timestamp", author, context_name, origin) \
            VALUES ($1, (extract(epoch FROM clock_timestamp()) - 978307200)::double precision, $2, $3, $4)
            """,
            parameters: [.int64(number), author.map { .text($0) } ?? .null, contextName.map { .text($0) } ?? .null, .text(changeOrigin)])
        try connection.execute(
            """
            INSERT INTO \(history.changes) ("transaction", entity, key, type, properties, tombstone) \
            SELECT $1, r.v->>'e', (r.v->>'k')::bigint, (r.v->>'t')::smallint, r.v->>'p', r.v->>'s' \
            FROM json_array_elements($2::json) WITH ORDINALITY AS r(v, n) ORDER BY r.n
            """,
            parameters: [.int64(number), .text(json)])
        return number
    }

    /// The condition selecting the transactions (alias `t`) after (`fetching`) or up to `bound`,
    /// with its parameter.
    private func condition(_ bound: StoreHistoryBound, fetching: Bool) -> (sql: String, parameter: PostgreSQLValue) {
        switch bound {
        case .transactionNumber(let number): return (fetching ? "t.number > $1" : "t.number <= $1", .int64(number))
        case .date(let date): return (fetching ? "t.\"timestamp\" > $1" : "t.\"timestamp\" < $1", .double(date.timeIntervalSinceReferenceDate))
        }
    }

    /// The recorded transactions after `bound`, in commit order, with their changes when asked
    /// (changes of entities the model does not have are skipped). Any thread.
    func historyTransactions(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction] {
        guard historyState.withLock({ $0.tablesExist }) else { return [] }
        let (where_, parameter) = condition(bound, fetching: true)
        let history = schema.history
        let sql =
            includingChanges
            ? """
            SELECT t.number, t."timestamp", t.author, t.context_name, c.change_id, c.entity, c.key, c.type, c.properties, c.tombstone \
            FROM \(history.transactions) AS t LEFT JOIN \(history.changes) AS c ON c."transaction" = t.number \
            WHERE \(where_) ORDER BY t.number, c.change_id
            """
            : "SELECT t.number, t.\"timestamp\", t.author, t.context_name FROM \(history.transactions) AS t WHERE \(where_) ORDER BY t.number"
        let entities = model.entitiesByName
        return try withConnection("Reading the PostgreSQL store's persistent history") { connection in
            var transactions: [StoreHistoryTransaction] = []
            for row in try connection.execute(sql, parameters: [parameter]) {
                guard let number = try row.int64(0), let seconds = try row.double(1) else { continue }
                if transactions.last?.transactionNumber != number {
                    transactions.append(
                        StoreHistoryTransaction(
                            transactionNumber: number, timestamp: Date(timeIntervalSinceReferenceDate: seconds), author: try row.string(2), contextName: try row.string(3),
                            changes: includingChanges ? [] : nil))
                }
                guard includingChanges, let changeID = try row.int64(4), let name = try row.string(5), let entity = entities[name], let key = try row.int64(6),
                    let rawType = try row.int64(7), let type = PersistentHistoryChangeType(rawValue: Int(rawType))
                else { continue }
                let properties = try row.string(8).flatMap(PostgreSQLHistoryCoding.decodeProperties)
                let tombstone = try row.string(9).map { try PostgreSQLHistoryCoding.decodeTombstone($0, of: entity) }
                let change = StoreHistoryChange(
                    changeID: changeID, objectID: newObjectID(for: entity, referenceObject: key), changeType: type, updatedProperties: properties, tombstone: tombstone)
                transactions[transactions.count - 1].changes?.append(change)
            }
            return transactions
        }
    }

    /// The number of changes in the transactions after `bound`. Any thread.
    func historyChangeCount(after bound: StoreHistoryBound) throws -> Int {
        guard historyState.withLock({ $0.tablesExist }) else { return 0 }
        let (where_, parameter) = condition(bound, fetching: true)
        let history = schema.history
        return try withConnection("Counting the PostgreSQL store's history changes") { connection in
            let row = try connection.execute(
                "SELECT count(*) FROM \(history.changes) AS c JOIN \(history.transactions) AS t ON t.number = c.\"transaction\" WHERE \(where_)", parameters: [parameter]
            ).first
            return Int(try row?.int64(0) ?? 0)
        }
    }

    /// Deletes the transactions up to `bound` with their changes, in one transaction, and
    /// returns how many changes went. Any thread.
    func deleteHistory(upTo bound: StoreHistoryBound) throws -> Int {
        guard historyState.withLock({ $0.tablesExist }) else { return 0 }
        let (where_, parameter) = condition(bound, fetching: false)
        let history = schema.history
        return try withConnection("Deleting the PostgreSQL store's persistent history", code: StrataError.Code.persistentStoreSave) { connection in
            // The outer query sees the changes as they were before the statement: it counts
            // those whose transaction the CTE deletes (the changes go by the cascade).
            let row = try connection.execute(
                """
                WITH gone AS (DELETE FROM \(history.transactions) AS t WHERE \(where_) RETURNING t.number) \
                SELECT count(*) FROM \(history.changes) WHERE "transaction" IN (SELECT number FROM gone)
                """,
                parameters: [parameter]
            ).first
            return Int(try row?.int64(0) ?? 0)
        }
    }

    /// The number of the newest committed transaction (0 when the history is empty). Any thread.
    func newestHistoryNumber() throws -> Int64 {
        guard historyState.withLock({ $0.tablesExist }) else { return 0 }
        return try withConnection("Reading the PostgreSQL store's newest history transaction") { connection in
            try connection.execute("SELECT coalesce(max(number), 0) FROM \(schema.history.transactions)").first?.int64(0) ?? 0
        }
    }

    /// Reports what other store instances committed while the listener was away (it
    /// reconnected, PostgreSQLChangeListener.swift): the changes of the history transactions
    /// after the newest one this store heard of, written by others, go to Strata as if their
    /// messages had arrived. Without history tracking nothing can be read back and such
    /// commits reach contexts on their next fetch or refresh. Called on the listener's thread;
    /// a failure to read leaves the gap to the next reconnection.
    func catchUpAfterReconnecting() {
        guard tracksHistory, historyState.withLock({ $0.tablesExist }) else { return }
        let after = historyCursor.withLock { $0 }
        let history = schema.history
        let entities = model.entitiesByName
        let read = try? withConnection("Reading the PostgreSQL store's history after reconnecting") { connection in
            let newest = try connection.execute("SELECT coalesce(max(number), 0) FROM \(history.transactions)").first?.int64(0) ?? after
            let rows = try connection.execute(
                """
                SELECT c.entity, c.key, c.type FROM \(history.transactions) AS t JOIN \(history.changes) AS c ON c."transaction" = t.number \
                WHERE t.number > $1 AND t.number <= $2 AND t.origin IS DISTINCT FROM $3 ORDER BY t.number, c.change_id
                """,
                parameters: [.int64(after), .int64(newest), .text(changeOrigin)])
            var inserted: [ManagedObjectID] = []
            var updated: [ManagedObjectID: Int64] = [:]
            var deleted: [ManagedObjectID] = []
            for row in rows {
                guard let name = try row.string(0), let entity = entities[name], let key = try row.int64(1), let type = try row.int64(2) else { continue }
                let id = newObjectID(for: entity, referenceObject: key)
                switch PersistentHistoryChangeType(rawValue: Int(type)) {
                case .insert?: inserted.append(id)
                case .update?: updated[id] = .max  // the version is not recorded
                case .delete?: deleted.append(id)
                case nil: continue
                }
            }
            return (newest, inserted, updated, deleted)
        }
        guard let (newest, inserted, updated, deleted) = read else { return }
        historyCursor.withLock { $0 = max($0, newest) }
        noteChangesMadeElsewhere(inserted: inserted, updated: updated, deleted: deleted, historyTransactionNumber: newest)
    }
}
