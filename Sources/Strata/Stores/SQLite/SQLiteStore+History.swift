import Foundation
import StrataSQLite

/// The persistent history of a SQLite store: `Z_HISTORY_TRANSACTION` and `Z_HISTORY_CHANGE`
/// (see `HistoryStatements`), written inside the transaction of each save and batch request, so
/// a transaction's history lands exactly when its changes do.
extension SQLiteStore: HistoryStoreBackend {
    var tracksHistory: Bool { configuration.tracksHistory }

    /// Records one transaction and its changes on `connection`, which must be inside the write
    /// transaction that made them. The entry point for every write path of the store (saves,
    /// batch update, batch delete, batch insert): call it after the rows are written and before
    /// the commit, with the IDs the rows have now (permanent ones) and the context's origin.
    /// Does nothing and returns nil when the store does not track history or `changes` is
    /// empty (a request that changed no row leaves no transaction); else returns the new
    /// transaction's number. Changes of rows without a primary key are skipped. O(changes).
    @discardableResult
    func recordHistory(_ changes: [HistoryChangeRecord], origin: TransactionOrigin, on connection: SQLiteConnection) throws -> Int64? {
        guard tracksHistory, !changes.isEmpty else { return nil }
        let transaction = try connection.cachedStatement(HistoryStatements.insertTransaction)
        try transaction.execute([.real(Date().timeIntervalSinceReferenceDate), origin.author.map { .text($0) } ?? .null, origin.contextName.map { .text($0) } ?? .null])
        let number = connection.lastInsertRowID
        // Whole chunks of rows go through the insert of `changesPerChunk` rows, the rest (fewer
        // than a chunk) through the insert of one.
        let rowCount = changes.reduce(0) { $0 + ($1.objectID.primaryKey == nil ? 0 : 1) }
        let chunked = rowCount - rowCount % HistoryStatements.changesPerChunk
        var chunks =
            chunked == 0 ? nil : HistoryChangeWriter(statement: try connection.cachedStatement(HistoryStatements.insertChangeChunk), rows: HistoryStatements.changesPerChunk, transaction: number)
        var singles = chunked == rowCount ? nil : HistoryChangeWriter(statement: try connection.cachedStatement(HistoryStatements.insertChange), rows: 1, transaction: number)
        var written = 0
        for change in changes {
            guard let pk = change.objectID.primaryKey else { continue }
            if written < chunked {
                try chunks?.add(change, pk: pk)
            } else {
                try singles?.add(change, pk: pk)
            }
            written += 1
        }
        return number
    }

    /// The preserved values (``AttributeDescription/preservesValueInHistoryOnDeletion``) of the
    /// rows `deletes` are about to remove, read on `connection` inside the save's transaction.
    /// Empty when the store does not track history or no deleted entity preserves a value.
    func historyTombstones(of deletes: [RowDeletion], on connection: SQLiteConnection) throws -> [ManagedObjectID: [String: StoredValue]] {
        guard tracksHistory else { return [:] }
        var result: [ManagedObjectID: [String: StoredValue]] = [:]
        for deletion in deletes {
            guard let pk = deletion.objectID.primaryKey, let table = schema.table(for: deletion.objectID.entity), let sql = fetchSQL.rowByKey(inTable: table.name) else { continue }
            guard !deletion.objectID.entity.layout.preservedAttributeSlots.isEmpty else { continue }
            var row: RowSnapshot?
            try connection.cachedStatement(sql).forEachRow([.integer(pk)]) { row = try decodeRow($0, offset: 0) }
            guard let row else { continue }
            var values: [String: StoredValue] = [:]
            for (slot, attribute) in row.objectID.entity.layout.preservedAttributeSlots where slot < row.attributes.count {
                values[attribute.name] = row.attributes[slot]
            }
            result[deletion.objectID] = values
        }
        return result
    }

    /// Creates the history tables when tracking is on and they are missing (one write
    /// transaction, only then).
    static func prepareHistoryTables(on connection: SQLiteConnection) throws {
        guard try !tableExists(HistoryStatements.transactionTable, on: connection) else { return }
        try connection.transaction(writeTransaction) {
            for statement in HistoryStatements.creation { try connection.execute(statement) }
        }
    }

    /// Tells the remote-change poster, if any, that a transaction committed.
    func didCommitTransaction() {
        remoteChangePoster.withLock { $0 }?.signal()
    }

    private func boundValue(_ bound: HistoryBound) -> (byDate: Bool, value: SQLiteValue) {
        switch bound {
        case .transactionNumber(let number): return (false, .integer(number))
        case .date(let date): return (true, .real(date.timeIntervalSinceReferenceDate))
        }
    }

    private func requireTracking() throws {
        guard tracksHistory else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation, message: "The store does not track persistent history (add it with PersistentStoreOption.persistentHistoryTracking)", url: url)
        }
    }

    func fetchHistory(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord] {
        try requireTracking()
        let (byDate, value) = boundValue(bound)
        do {
            return try pool.withReader(.default) { connection in
                try connection.transaction(.deferred) {
                    var transactions: [HistoryTransactionRecord] = []
                    var positions: [Int64: Int] = [:]
                    try connection.cachedStatement(HistoryStatements.transactions(byDate: byDate)).forEachRow([value]) { row in
                        positions[row.int64(at: 0)] = transactions.count
                        transactions.append(
                            HistoryTransactionRecord(
                                number: row.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                                origin: TransactionOrigin(author: row.text(at: 2), contextName: row.text(at: 3)), changes: withChanges ? [] : nil))
                    }
                    guard withChanges, !transactions.isEmpty else { return transactions }
                    var spaces = StoreIDSpaces(token: token)
                    try connection.cachedStatement(HistoryStatements.changes(byDate: byDate)).forEachRow([value]) { row in
                        guard let position = positions[row.int64(at: 1)], let type = PersistentHistoryChangeType(rawValue: Int(row.int64(at: 2))),
                            let entity = model.entity(forCode: row.int64(at: 3))
                        else { return }
                        let id = spaces.id(entity, primaryKey: row.int64(at: 4))
                        let properties = row.text(at: 5).map { $0.isEmpty ? [] : $0.split(separator: ",").map(String.init) }
                        let tombstone = row.blob(at: 6).flatMap(HistoryTombstoneCoding.decode)
                        transactions[position].changes?.append((row.int64(at: 0), HistoryChangeRecord(objectID: id, type: type, updatedProperties: properties, tombstone: tombstone)))
                    }
                    return transactions
                }
            }
        } catch {
            throw wrap(error, "Fetching persistent history")
        }
    }

    func countHistoryChanges(after bound: HistoryBound) throws -> Int {
        try requireTracking()
        let (byDate, value) = boundValue(bound)
        do {
            return try pool.withReader(.default) { connection in
                var count: Int64 = 0
                try connection.cachedStatement(HistoryStatements.countChanges(byDate: byDate)).forEachRow([value]) { count = $0.int64(at: 0) }
                return Int(count)
            }
        } catch {
            throw wrap(error, "Counting persistent history")
        }
    }

    func deleteHistory(before bound: HistoryBound) throws -> Int {
        try requireTracking()
        if configuration.readOnly {
            throw StrataError(code: StrataError.Code.persistentStoreSave, message: "The store was opened read-only: its history cannot be deleted", url: url)
        }
        let (byDate, value) = boundValue(bound)
        let sql = HistoryStatements.delete(byDate: byDate)
        do {
            return try pool.withWriter { connection in
                try connection.transaction(Self.writeTransaction) {
                    try connection.cachedStatement(sql.changes).execute([value])
                    let deleted = connection.changes
                    try connection.cachedStatement(sql.transactions).execute([value])
                    return deleted
                }
            }
        } catch {
            throw wrap(error, "Deleting persistent history")
        }
    }

    func lastHistoryTransactionNumber() throws -> Int64 {
        try requireTracking()
        do {
            return try pool.withReader(.default) { try Self.lastTransactionNumber(on: $0) }
        } catch {
            throw wrap(error, "Reading the persistent history token")
        }
    }

    /// The last transaction number ever handed out (kept by SQLite for `AUTOINCREMENT`, so it
    /// stays after the history is deleted); 0 when none.
    static func lastTransactionNumber(on connection: SQLiteConnection) throws -> Int64 {
        var number: Int64 = 0
        try connection.cachedStatement(HistoryStatements.lastTransaction).forEachRow { number = $0.optionalInt64(at: 0) ?? 0 }
        return number
    }

    func startRemoteChangeNotifications(_ post: @escaping @Sendable (Int64?) -> Void) throws {
        let box = ProbeConnection(connection: try pool.openDetachedConnection())
        let tracks = tracksHistory
        let sources = RemoteChangePoster.Sources(
            lastTransaction: { tracks ? try Self.lastTransactionNumber(on: box.connection) : nil },
            transactions: { after in
                guard tracks else { return nil }
                var numbers: [Int64] = []
                try box.connection.cachedStatement(HistoryStatements.transactionNumbersAfter).forEachRow([.integer(after)]) { numbers.append($0.int64(at: 0)) }
                return numbers
            },
            changeMarker: {
                var version: Int64 = 0
                try box.connection.cachedStatement(HistoryStatements.dataVersion).forEachRow { version = $0.int64(at: 0) }
                return version
            })
        let poster = try RemoteChangePoster(label: "org.strata.remote-change.\(token.identifier)", sources: sources, post: post)
        let previous = remoteChangePoster.withLock { slot -> RemoteChangePoster? in
            defer { slot = poster }
            return slot
        }
        previous?.stop()
    }
}

/// The connection a remote-change poster reads on, used only on the poster's queue.
private final class ProbeConnection: @unchecked Sendable {
    // @unchecked Sendable: used only on one serial queue (`RemoteChangePoster`).
    let connection: SQLiteConnection
    init(connection: SQLiteConnection) { self.connection = connection }
}
