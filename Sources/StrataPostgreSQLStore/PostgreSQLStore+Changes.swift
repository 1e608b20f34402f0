import Foundation
import Strata
import StrataPostgreSQL

/// How coordinators on other processes and servers hear of this store's commits, and this
/// store of theirs: every save sends the keys it inserted, updated (with their new versions)
/// and deleted as ``PostgreSQLChangeMessage``s on the namespace's channel (`pg_notify` inside
/// the save's transaction, so they are delivered at its commit and never after a rollback);
/// each store listens on that channel (``PostgreSQLChangeListener``) and hands what other
/// store instances committed to Strata (`noteChangesMadeElsewhere`), which merges it into
/// contexts with `automaticallyMergesChangesFromParent` and posts `.persistentStoreRemoteChange`
/// when asked.
extension PostgreSQLStore {
    /// The channel of the store's namespace: every store in it, in every process, uses it.
    var changeChannel: String { PostgreSQLSchema.identifier("strata$" + schema.namespace) }

    /// Sends what a save wrote to the other stores on the namespace, on the save's connection
    /// inside its transaction.
    func announceChanges(of request: SaveChangesRequest, result: SaveChangesResult, historyTransactionNumber: Int64?, on connection: PostgreSQLConnection) throws {
        var inserted: [(entity: String, key: Int64)] = []
        for node in request.insertedObjects {
            guard let id = result.permanentIDs[node.objectID] ?? (node.objectID.isTemporaryID ? nil : node.objectID), let key = referenceObject(for: id) else { continue }
            inserted.append((id.entity.name, key))
        }
        var updated: [(entity: String, key: Int64, version: Int64)] = []
        for update in request.updatedObjects {
            let id = update.node.objectID
            guard let key = referenceObject(for: id) else { continue }
            updated.append((id.entity.name, key, result.versions[id] ?? (update.ignoresVersion ? Int64.max : update.baseVersion + 1)))
        }
        let deleted: [(entity: String, key: Int64)] = request.deletedObjects.compactMap { deletion in
            referenceObject(for: deletion.objectID).map { (deletion.objectID.entity.name, $0) }
        }
        try announce(inserted: inserted, updated: updated, deleted: deleted, historyTransactionNumber: historyTransactionNumber, on: connection)
    }

    /// Sends the rows a transaction wrote to the other stores on the namespace, on its
    /// connection inside the transaction (delivered at the commit), with the number of the
    /// history transaction that recorded them, if any.
    func announce(
        inserted: [(entity: String, key: Int64)], updated: [(entity: String, key: Int64, version: Int64)], deleted: [(entity: String, key: Int64)],
        historyTransactionNumber: Int64? = nil, on connection: PostgreSQLConnection
    ) throws {
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        let payloads = PostgreSQLChangeMessage.payloads(origin: changeOrigin, inserted: inserted, updated: updated, deleted: deleted, history: historyTransactionNumber)
        try connection.notify(changeChannel, payloads: payloads)
    }

    /// Starts listening for other stores' commits, unless the store was added with
    /// ``PostgreSQLStoreOption/listensForChanges`` false. Called once the store is open.
    func startListening() throws {
        guard (options[PostgreSQLStoreOption.listensForChanges] as? Bool) ?? true else { return }
        if tracksHistory {
            let newest = try newestHistoryNumber()
            historyCursor.withLock { $0 = max($0, newest) }
        }
        let listener = try PostgreSQLChangeListener(
            configuration: configuration, channel: changeChannel, origin: changeOrigin,
            handler: { [weak self] message in self?.receive(message) },
            resumed: { [weak self] in self?.catchUpAfterReconnecting() })
        let previous = changeListener.withLock { slot -> PostgreSQLChangeListener? in
            defer { slot = listener }
            return slot
        }
        previous?.stop()
    }

    /// Stops listening (the store closes).
    func stopListening() {
        changeListener.withLock { slot -> PostgreSQLChangeListener? in
            defer { slot = nil }
            return slot
        }?.stop()
    }

    /// Another store instance committed `message`: its rows, as object IDs of this store, go
    /// to Strata. Entities this model does not have are skipped. Called on the listener's thread.
    private func receive(_ message: PostgreSQLChangeMessage) {
        if let number = message.history { historyCursor.withLock { $0 = max($0, number) } }
        let entities = model.entitiesByName
        func ids(_ keys: [String: [Int64]]) -> [ManagedObjectID] {
            keys.flatMap { name, keys in entities[name].map { entity in keys.map { newObjectID(for: entity, referenceObject: $0) } } ?? [] }
        }
        var updated: [ManagedObjectID: Int64] = [:]
        for (name, keys) in message.updated {
            guard let entity = entities[name], let versions = message.versions[name] else { continue }
            for (key, version) in zip(keys, versions) { updated[newObjectID(for: entity, referenceObject: key)] = version }
        }
        noteChangesMadeElsewhere(inserted: ids(message.inserted), updated: updated, deleted: ids(message.deleted), historyTransactionNumber: message.history)
    }
}
