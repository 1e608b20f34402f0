import Foundation

/// The persistent history of an in-memory store: kept in the store's state, recorded under the
/// same lock as the save it describes (so it lands exactly when the save does), gone with the
/// store.
struct InMemoryHistory {
    var transactions: [HistoryTransactionRecord] = []
    /// The last transaction number handed out (numbers are never reused).
    var lastNumber: Int64 = 0
    var lastChangeID: Int64 = 0

    /// Appends one transaction, unless `changes` is empty.
    mutating func record(_ changes: [HistoryChangeRecord], origin: TransactionOrigin) {
        guard !changes.isEmpty else { return }
        lastNumber += 1
        var numbered: [(changeID: Int64, record: HistoryChangeRecord)] = []
        numbered.reserveCapacity(changes.count)
        for change in changes {
            lastChangeID += 1
            numbered.append((lastChangeID, change))
        }
        transactions.append(HistoryTransactionRecord(number: lastNumber, timestamp: Date(), origin: origin, changes: numbered))
    }

    func matches(_ transaction: HistoryTransactionRecord, after bound: HistoryBound) -> Bool {
        switch bound {
        case .transactionNumber(let number): return transaction.number > number
        case .date(let date): return transaction.timestamp > date
        }
    }

    func isDeleted(_ transaction: HistoryTransactionRecord, before bound: HistoryBound) -> Bool {
        switch bound {
        case .transactionNumber(let number): return transaction.number <= number
        case .date(let date): return transaction.timestamp < date
        }
    }
}

extension InMemoryStore: HistoryStoreBackend {
    /// The preserved values of the rows `deletes` will remove, read from `state`.
    func historyTombstones(of deletes: [RowDeletion], in state: State) -> [ManagedObjectID: [String: StoredValue]] {
        var result: [ManagedObjectID: [String: StoredValue]] = [:]
        for deletion in deletes {
            let slots = deletion.objectID.entity.layout.preservedAttributeSlots
            guard !slots.isEmpty, let pk = deletion.objectID.primaryKey, let row = state.tables[deletion.objectID.entity.rootEntity.name]?[pk] else { continue }
            var values: [String: StoredValue] = [:]
            for (slot, attribute) in row.objectID.entity.layout.preservedAttributeSlots where slot < row.attributes.count {
                values[attribute.name] = row.attributes[slot]
            }
            result[deletion.objectID] = values
        }
        return result
    }

    func didCommitTransaction() {
        remoteChangePoster.withLock { $0 }?.signal()
    }

    private func requireTracking() throws {
        guard tracksHistory else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The store does not track persistent history (add it with PersistentStoreOption.persistentHistoryTracking)")
        }
    }

    func fetchHistory(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord] {
        try requireTracking()
        let history = state.withLock { $0.history }
        return history.transactions.filter { history.matches($0, after: bound) }.map { transaction in
            var copy = transaction
            if !withChanges { copy.changes = nil }
            return copy
        }
    }

    func countHistoryChanges(after bound: HistoryBound) throws -> Int {
        try requireTracking()
        let history = state.withLock { $0.history }
        return history.transactions.reduce(0) { $0 + (history.matches($1, after: bound) ? $1.changes?.count ?? 0 : 0) }
    }

    func deleteHistory(before bound: HistoryBound) throws -> Int {
        try requireTracking()
        return state.withLock { current in
            var deleted = 0
            let history = current.history
            current.history.transactions.removeAll { transaction in
                guard history.isDeleted(transaction, before: bound) else { return false }
                deleted += transaction.changes?.count ?? 0
                return true
            }
            return deleted
        }
    }

    func lastHistoryTransactionNumber() throws -> Int64 {
        try requireTracking()
        return state.withLock { $0.history.lastNumber }
    }

    func startRemoteChangeNotifications(_ post: @escaping @Sendable (Int64?) -> Void) throws {
        let tracks = tracksHistory
        let sources = RemoteChangePoster.Sources(
            lastTransaction: { [weak self] in tracks ? self?.state.withLock { $0.history.lastNumber } : nil },
            transactions: { [weak self] after in
                guard tracks else { return nil }
                return self?.state.withLock { $0.history.transactions.map(\.number).filter { $0 > after } } ?? []
            },
            changeMarker: nil)
        let poster = try RemoteChangePoster(label: "org.strata.remote-change.\(token.identifier)", sources: sources, post: post)
        remoteChangePoster.withLock { $0 = poster }
    }

    /// Stops the remote-change notifications (the store is closing).
    func stopRemoteChangeNotifications() {
        remoteChangePoster.withLock { slot -> RemoteChangePoster? in
            defer { slot = nil }
            return slot
        }?.stop()
    }
}
