import Foundation

/// The persistent history of a store written against the public seam, as the coordinator reads
/// every store's (`HistoryStoreBackend`): the store's ``StoreHistoryTransaction``s turned into
/// the records the built-in stores return. Thread-safe as the store is.
extension IncrementalStoreBackend: HistoryStoreBackend {
    /// Whether the store keeps a history (``IncrementalStore/keepsPersistentHistory``).
    var tracksHistory: Bool { store.keepsPersistentHistory }

    func fetchHistory(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord] {
        try store.fetchHistory(after: bound, includingChanges: withChanges).map { transaction in
            HistoryTransactionRecord(
                number: transaction.transactionNumber, timestamp: transaction.timestamp,
                origin: TransactionOrigin(author: transaction.author, contextName: transaction.contextName),
                changes: try transaction.changes?.map { change in (change.changeID, try record(of: change)) })
        }
    }

    func countHistoryChanges(after bound: HistoryBound) throws -> Int { try store.countOfHistoryChanges(after: bound) }

    func deleteHistory(before bound: HistoryBound) throws -> Int { try store.deleteHistoryTransactions(before: bound) }

    func lastHistoryTransactionNumber() throws -> Int64 { try store.newestHistoryTransactionNumber() }

    /// Not used for these stores: the coordinator posts their remote-change notifications when
    /// they report changes made elsewhere (PersistentStoreCoordinator+ChangesElsewhere.swift).
    /// Throws 134000-range `persistentStoreInvalidType`.
    func startRemoteChangeNotifications(_ post: @escaping @Sendable (Int64?) -> Void) throws {
        throw StrataError(
            code: StrataError.Code.persistentStoreInvalidType,
            message: "\(type(of: store)) posts remote-change notifications only for changes other processes make (IncrementalStore.reportsChangesMadeElsewhere)", url: store.url)
    }

    /// `change` as the coordinator's record: a tombstone's values back in stored form. A value
    /// of the wrong type for its attribute is an error naming it (the store read back something
    /// it did not record).
    private func record(of change: StoreHistoryChange) throws -> HistoryChangeRecord {
        var tombstone: [String: StoredValue]?
        if let values = change.tombstone {
            let entity = change.objectID.entity
            var stored: [String: StoredValue] = [:]
            for (name, value) in values {
                guard let attribute = entity.attributesByName[name] else { continue }
                switch AttributeCodec.encode(value, for: attribute) {
                case .success(let encoded): stored[name] = encoded
                case .failure(let problem):
                    throw StrataError(
                        code: StrataError.Code.persistentStoreOperation,
                        message: "The history of \(type(of: store)) holds a tombstone value of \(entity.name).\(name) that does not fit it: \(problem.message)",
                        entityName: entity.name, key: name, url: store.url)
                }
            }
            tombstone = stored
        }
        return HistoryChangeRecord(objectID: change.objectID, type: change.changeType, updatedProperties: change.updatedProperties, tombstone: tombstone)
    }
}
