import Foundation

/// A root context as the coordinator sees it when a store reports changes made outside the
/// coordinator (``IncrementalStore/noteChangesMadeElsewhere(inserted:updated:deleted:historyTransactionNumber:)``).
/// Declared here so that the coordinator never uses `Context/`; `ManagedObjectContext`
/// implements it (Sources/Strata/Context/ManagedObjectContext+Merge.swift). Called from any
/// thread; the receiver does its work on its own queue.
protocol ChangesElsewhereReceiver: AnyObject {
    /// Merges the changes when the receiver merges automatically; never waits.
    func receiveChangesMadeElsewhere(inserted: Set<ManagedObjectID>, updated: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>)
}

extension PersistentStoreCoordinator {
    /// Routes `store`'s reports of changes made elsewhere to this coordinator, for as long as
    /// both live.
    func listenForChangesMadeElsewhere(_ store: PersistentStore) {
        store.incrementalStore.changesElsewhereHandler.withLock { handler in
            handler = { [weak self, weak store] changes in
                guard let self, let store else { return }
                self.apply(changes, madeElsewhereIn: store)
            }
        }
    }

    /// Drops the changed rows from the row cache, has the root contexts merge them, and posts
    /// `.persistentStoreRemoteChange` when the store was added asking for it.
    private func apply(_ changes: ChangesMadeElsewhere, madeElsewhereIn store: PersistentStore) {
        var rows = changes.updated.map { (id: $0.key, floor: $0.value == .max ? Int64.max : $0.value - 1) }
        rows += changes.deleted.map { (id: $0, floor: Int64.max) }
        rowCache.invalidate(rows)
        let inserted = Set(changes.inserted)
        let updated = Set(changes.updated.keys)
        let deleted = Set(changes.deleted)
        for case let receiver as any ChangesElsewhereReceiver in rootContextList.objects {
            receiver.receiveChangesMadeElsewhere(inserted: inserted, updated: updated, deleted: deleted)
        }
        if store.options.postsRemoteChangeNotifications {
            var info: [AnyHashable: Any] = [RemoteChangeKey.storeUUID: store.identifier]
            if let number = changes.historyTransactionNumber, store.incrementalStore.keepsPersistentHistory {
                info[RemoteChangeKey.historyToken] = PersistentHistoryToken(store: store.identifier, transactionNumber: number)
            }
            NotificationCenter.default.post(name: .persistentStoreRemoteChange, object: self, userInfo: info)
        }
    }
}
