import Foundation

/// Persistent history through a context: the origin its writes record, and history requests.
extension ManagedObjectContext {
    /// This context's author and name, as the history records them with its writes.
    var transactionOrigin: TransactionOrigin {
        TransactionOrigin(author: transactionAuthor, contextName: name)
    }

    /// Runs a ``PersistentHistoryChangeRequest`` on the coordinator at the root of the tree.
    func executeHistoryRequest(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        guard let coordinator = persistentStoreCoordinator else {
            throw StrataError(code: StrataError.Code.coreData, message: "\(self) has no persistent store coordinator: persistent history is kept by its stores")
        }
        return try coordinator.executeHistoryRequest(request)
    }
}

extension PersistentHistoryTransaction {
    /// A did-save notification holding this transaction's object IDs (inserted, updated,
    /// deleted) under ``ManagedObjectContext/NotificationKey``'s ID keys, to pass to
    /// `mergeChanges(fromContextDidSave:)` on a context's queue (Core Data's
    /// `objectIDNotification()`). Empty sets when the transaction was fetched without its
    /// changes. Callable on any queue.
    public func objectIDNotification() -> Notification {
        var inserted = Set<ManagedObjectID>()
        var updated = Set<ManagedObjectID>()
        var deleted = Set<ManagedObjectID>()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: inserted.insert(change.changedObjectID)
            case .update: updated.insert(change.changedObjectID)
            case .delete: deleted.insert(change.changedObjectID)
            }
        }
        return Notification(
            name: .managedObjectContextDidSaveObjectIDs, object: nil,
            userInfo: [
                ManagedObjectContext.NotificationKey.insertedObjectIDs: inserted,
                ManagedObjectContext.NotificationKey.updatedObjectIDs: updated,
                ManagedObjectContext.NotificationKey.deletedObjectIDs: deleted,
            ])
    }
}
