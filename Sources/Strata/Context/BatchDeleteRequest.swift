import Foundation

/// What a ``BatchDeleteResult`` holds (Core Data's `NSBatchDeleteRequestResultType`).
///
/// A `Sendable` value: use it on any thread.
public enum BatchDeleteRequestResultType: Sendable {
    /// `result` is `true` when the delete ran.
    case resultTypeStatusOnly
    /// `result` is the `[ManagedObjectID]` of every deleted row.
    case resultTypeObjectIDs
    /// `result` is the number (`Int`) of deleted rows.
    case resultTypeCount
}

/// Deletes the rows a fetch request matches, or the rows of some object IDs, straight on the
/// store, without loading objects (Core Data's `NSBatchDeleteRequest`).
///
/// The model's delete rules are applied in the store, as a context's `delete(_:)` and `save()`
/// apply them: `cascade` deletes the rows at the other end too (recursively, across entities
/// and join tables), `nullify` clears the inverse relationship of the rows that stay (their
/// foreign keys and join-table rows), `deny` makes the whole request fail, naming the object and
/// the relationship, while a row that stays is still at its other end, and `noAction` leaves the
/// rows that stay as they are. Rows that stay and lose a partner get a new version, so a
/// context holding an edited copy of one gets a merge conflict (133020) at its next save. On
/// the SQLite store it all runs in SQL in one transaction: all of it or nothing.
///
/// As in Core Data, validation is not run and contexts are not changed: merge the result's IDs
/// (ask for ``BatchDeleteRequestResultType/resultTypeObjectIDs``) with
/// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`, or set
/// ``mergesChangesIntoContexts``. The count and the IDs cover every deleted row, the cascaded
/// ones included. A fetch request's predicate, sort descriptors, `fetchLimit`, `fetchOffset` and
/// `includesSubentities` choose the rows; its result type does not matter.
///
/// Configure on one thread, then pass to `execute(_:)` on a context's queue.
public final class BatchDeleteRequest: PersistentStoreRequest {
    /// The request choosing the rows, when the delete was made from one (a copy taken at init).
    public let fetchRequest: FetchRequest<ManagedObject>?
    /// The objects to delete, when the delete was made from object IDs.
    public let objectIDs: [ManagedObjectID]?
    /// What the result holds (default `.resultTypeStatusOnly`).
    public var resultType: BatchDeleteRequestResultType = .resultTypeStatusOnly
    /// The stores to delete from (`nil`: every store of the coordinator that holds the entity).
    public var affectedStores: [IncrementalStore]?
    /// Strata: whether, after the delete, every context of the coordinator (root contexts and
    /// their children) merges it, each on its own queue and without waiting, as
    /// `mergeChanges(fromRemoteContextSave:into:)` does: registered objects of deleted rows
    /// become deleted, those whose relationships lost a partner are refreshed, and
    /// objects-did-change reports them. Default false (Core Data's behaviour: contexts are left
    /// as they are).
    public var mergesChangesIntoContexts = false

    /// A delete of the rows `fetchRequest` matches (any result type).
    public init<T>(fetchRequest: FetchRequest<T>) {
        self.fetchRequest = fetchRequest.copy(as: ManagedObject.self)
        self.objectIDs = nil
    }

    /// A delete of the rows of `objectIDs`, which must all be of one entity (executing the
    /// request throws otherwise, as in Core Data). IDs of rows already gone are skipped.
    public init(objectIDs: [ManagedObjectID]) {
        self.fetchRequest = nil
        self.objectIDs = objectIDs
    }

    /// `.batchDeleteRequestType`.
    public var requestType: PersistentStoreRequestType { .batchDeleteRequestType }
}

/// The result of a ``BatchDeleteRequest`` (Core Data's `NSBatchDeleteResult`).
///
/// Returned by `execute(_:)` on the context's queue; its `result` holds `Sendable` values (a flag,
/// IDs or a count), which may then go to any thread.
public final class BatchDeleteResult: PersistentStoreResult {
    /// `true`, the `[ManagedObjectID]` of the deleted rows, or their number (`Int`), as
    /// ``resultType`` says.
    public let result: Any?
    /// The kind of `result`.
    public let resultType: BatchDeleteRequestResultType

    init(resultType: BatchDeleteRequestResultType, count: Int, ids: [ManagedObjectID]) {
        self.resultType = resultType
        switch resultType {
        case .resultTypeStatusOnly: result = true
        case .resultTypeObjectIDs: result = ids
        case .resultTypeCount: result = count
        }
        super.init()
    }
}
