import Foundation

extension Notification.Name {
    /// Posted by a coordinator after each transaction committed on one of its stores added with
    /// ``PersistentStoreOption/remoteChangeNotificationPost`` — this process's saves and batch
    /// requests, and other processes' writes to the same SQLite file (Core Data's
    /// `NSPersistentStoreRemoteChange`). The object is the coordinator; the user info holds
    /// ``PersistentStoreCoordinator/RemoteChangeKey/storeUUID`` and, when the store tracks
    /// history, ``PersistentStoreCoordinator/RemoteChangeKey/historyToken`` (the transaction's
    /// token). Posted on a background queue of the store's own, in commit order; observers do
    /// their work on their contexts' queues (`perform`).
    public static let persistentStoreRemoteChange = Notification.Name("NSPersistentStoreRemoteChangeNotification")
}

/// Persistent history and remote-change notifications (`PersistentStoreOption.persistentHistoryTracking`,
/// `.remoteChangeNotificationPost`).
extension PersistentStoreCoordinator {
    /// User-info keys of `.persistentStoreRemoteChange`.
    ///
    /// Constants: use them on any thread.
    public enum RemoteChangeKey {
        /// The ``PersistentHistoryToken`` of the transaction (Core Data's `NSPersistentHistoryTokenKey`).
        public static let historyToken = "historyToken"
        /// The identifier (`String`) of the store that changed (Core Data's `NSStoreUUIDKey`).
        public static let storeUUID = "storeUUID"
    }

    /// A token for the newest transaction of each of `stores` (`nil`: every store of the
    /// coordinator) that tracks history: fetching history after it returns only what comes
    /// later. `nil` when none of them tracks history or its history cannot be read. Callable
    /// from any thread.
    public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) -> PersistentHistoryToken? {
        var tokens: [String: Int64] = [:]
        for store in stores ?? persistentStores {
            guard let history = store.backend as? any HistoryStoreBackend, history.tracksHistory, let number = try? history.lastHistoryTransactionNumber() else { continue }
            tokens[store.identifier] = number
        }
        return tokens.isEmpty ? nil : PersistentHistoryToken(storeTokens: tokens)
    }

    /// Checks a store's history options when it is added, and starts its remote-change
    /// notifications when asked. A store class of the public seam keeps a history only when it
    /// says so (``IncrementalStore/keepsPersistentHistory``) and posts remote-change
    /// notifications only when it reports changes made elsewhere; asking one for what it does
    /// not do is an error (134000-range `persistentStoreInvalidType`).
    func startHistory(for store: PersistentStore) throws {
        let options = store.options
        guard options.tracksPersistentHistory || options.postsRemoteChangeNotifications else { return }
        if store.backend is IncrementalStoreBackend {
            // It posts for other processes' commits (PersistentStoreCoordinator+ChangesElsewhere.swift).
            let incremental = store.incrementalStore
            if options.tracksPersistentHistory && !incremental.keepsPersistentHistory {
                throw StrataError(
                    code: StrataError.Code.persistentStoreInvalidType,
                    message: "Store type '\(store.type.rawValue)' keeps no persistent history: persistentHistoryTracking needs a store that keeps one (.sqlite, .inMemory, .postgreSQL)",
                    url: store.url)
            }
            if options.postsRemoteChangeNotifications && !incremental.reportsChangesMadeElsewhere {
                throw StrataError(
                    code: StrataError.Code.persistentStoreInvalidType,
                    message: "Store type '\(store.type.rawValue)' does not report changes made elsewhere: remoteChangeNotificationPost needs a store that does",
                    url: store.url)
            }
            return
        }
        guard let history = store.backend as? any HistoryStoreBackend else {
            throw StrataError(
                code: StrataError.Code.persistentStoreInvalidType,
                message: "Store type '\(store.type.rawValue)' keeps no persistent history: persistentHistoryTracking and remoteChangeNotificationPost need a store that keeps one",
                url: store.url)
        }
        guard options.postsRemoteChangeNotifications else { return }
        let identifier = store.identifier
        try history.startRemoteChangeNotifications { [weak self] number in
            guard let self else { return }
            var info: [AnyHashable: Any] = [RemoteChangeKey.storeUUID: identifier]
            if let number { info[RemoteChangeKey.historyToken] = PersistentHistoryToken(store: identifier, transactionNumber: number) }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: info)
        }
    }

    /// Runs a history request on the stores that track history (those among its
    /// `affectedStores`, when given). Throws when none does. Callable from any thread.
    func executeHistoryRequest(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        var candidates = persistentStores
        if let affected = request.affectedStores {
            candidates = candidates.filter { store in affected.contains { $0 === store.incrementalStore } }
        }
        let stores: [(PersistentStore, any HistoryStoreBackend)] = candidates.compactMap { store in
            guard let history = store.backend as? any HistoryStoreBackend, history.tracksHistory else { return nil }
            return (store, history)
        }
        guard !stores.isEmpty else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message:
                    "No \(request.affectedStores == nil ? "" : "affected ")store of this coordinator tracks persistent history: add the store with PersistentStoreOption.persistentHistoryTracking = true"
            )
        }
        switch request.operation {
        case .fetchAfterToken, .fetchAfterDate:
            if request.resultType == .count {
                let count = try stores.reduce(0) { $0 + (try $1.1.countHistoryChanges(after: bound(of: request, for: $1.0))) }
                return PersistentHistoryResult(resultType: .count, result: count)
            }
            let withChanges = request.resultType == .transactionsAndChanges
            var transactions: [PersistentHistoryTransaction] = []
            for (store, history) in stores {
                transactions += try history.fetchHistory(after: bound(of: request, for: store), withChanges: withChanges).map { publicTransaction($0, store: store) }
            }
            if request.resultType == .statusOnly { return PersistentHistoryResult(resultType: .statusOnly, result: true) }
            return PersistentHistoryResult(resultType: request.resultType, result: transactions)
        case .deleteBeforeToken(let token):
            var deleted = 0
            for (store, history) in stores {
                if let token {
                    // A token that does not name the store leaves its history alone.
                    guard let number = token.storeTokens[store.identifier] else { continue }
                    deleted += try history.deleteHistory(before: .transactionNumber(number))
                } else {
                    deleted += try history.deleteHistory(before: .transactionNumber(Int64.max))
                }
            }
            return PersistentHistoryResult(resultType: request.resultType, result: request.resultType == .count ? deleted : true)
        case .deleteBeforeDate(let date):
            var deleted = 0
            for (_, history) in stores { deleted += try history.deleteHistory(before: .date(date)) }
            return PersistentHistoryResult(resultType: request.resultType, result: request.resultType == .count ? deleted : true)
        }
    }

    /// Where a fetch starts in `store`'s history.
    private func bound(of request: PersistentHistoryChangeRequest, for store: PersistentStore) -> HistoryBound {
        switch request.operation {
        case .fetchAfterDate(let date): return .date(date)
        case .fetchAfterToken(let token): return .transactionNumber(token?.storeTokens[store.identifier] ?? 0)
        case .deleteBeforeToken, .deleteBeforeDate: return .transactionNumber(0)
        }
    }

    /// A store's record as the public transaction: property names become the entity's
    /// descriptions, tombstone values become attribute values.
    private func publicTransaction(_ record: HistoryTransactionRecord, store: PersistentStore) -> PersistentHistoryTransaction {
        let changes = record.changes.map { list in
            list.map { changeID, change -> PersistentHistoryChange in
                let entity = change.objectID.entity
                let properties = change.updatedProperties.map { names in Set(names.compactMap { entity.propertiesByName[$0] }) }
                var tombstone: [String: Any]?
                if let stored = change.tombstone {
                    var values: [String: Any] = [:]
                    for (name, value) in stored {
                        guard let attribute = entity.attributesByName[name], let decoded = AttributeCodec.decode(value, for: attribute) else { continue }
                        values[name] = decoded
                    }
                    tombstone = values
                }
                return PersistentHistoryChange(changeID: changeID, changedObjectID: change.objectID, changeType: change.type, updatedProperties: properties, tombstone: tombstone)
            }
        }
        return PersistentHistoryTransaction(
            storeID: store.identifier, transactionNumber: record.number, timestamp: record.timestamp, author: record.origin.author,
            contextName: record.origin.contextName, changes: changes)
    }
}
