import Foundation

/// The kind of a ``PersistentHistoryChange`` (Core Data's `NSPersistentHistoryChangeType`).
///
/// A `Sendable` value: use it on any thread.
public enum PersistentHistoryChangeType: Int, Sendable, Hashable {
    /// The object was inserted.
    case insert = 0
    /// Some of the object's properties changed (``PersistentHistoryChange/updatedProperties``).
    case update = 1
    /// The object was deleted (its ``PersistentHistoryChange/tombstone`` keeps the values of
    /// attributes marked ``AttributeDescription/preservesValueInHistoryOnDeletion``).
    case delete = 2
}

/// One root-context save or batch request as the persistent history recorded it (Core Data's
/// `NSPersistentHistoryTransaction`): when, by whom, and what changed. Immutable once fetched:
/// read it on any queue; pass ``objectIDNotification()`` to a context's
/// `mergeChanges(fromContextDidSave:)` on that context's queue.
public final class PersistentHistoryTransaction: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: every property is a constant; `changes` hold frozen model descriptions
    // and tombstones of plain values.
    /// The bookmark of this transaction: fetching history after it returns what came later.
    public let token: PersistentHistoryToken
    /// When the transaction was committed.
    public let timestamp: Date
    /// The ``ManagedObjectContext/transactionAuthor`` of the context that saved (or ran the
    /// batch request), if it had one.
    public let author: String?
    /// The ``ManagedObjectContext/name`` of that context, if it had one.
    public let contextName: String?
    /// The identifier of the store the transaction was written to.
    public let storeID: String
    /// The transaction's number in its store: numbers grow by commit order and are never reused.
    public let transactionNumber: Int64
    /// The changes, in the order the store recorded them; `nil` when the request asked for
    /// ``PersistentHistoryResultType/transactionsOnly``.
    public let changes: [PersistentHistoryChange]?

    init(
        storeID: String, transactionNumber: Int64, timestamp: Date, author: String?, contextName: String?, changes: [PersistentHistoryChange]?
    ) {
        self.token = PersistentHistoryToken(store: storeID, transactionNumber: transactionNumber)
        self.storeID = storeID
        self.transactionNumber = transactionNumber
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }

    public var description: String {
        "<PersistentHistoryTransaction \(storeID)#\(transactionNumber) author=\(author ?? "nil") context=\(contextName ?? "nil") changes=\(changes.map { String($0.count) } ?? "nil")>"
    }
}

/// The change of one object in a ``PersistentHistoryTransaction`` (Core Data's
/// `NSPersistentHistoryChange`). Immutable: read it on any queue.
public final class PersistentHistoryChange: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: constants only; the tombstone holds plain attribute values.
    /// The change's number in its store (grows in recording order).
    public let changeID: Int64
    /// The object that changed.
    public let changedObjectID: ManagedObjectID
    /// Insert, update or delete.
    public let changeType: PersistentHistoryChangeType
    /// For an update: the attributes and relationships that changed; `nil` for inserts and deletes.
    public let updatedProperties: Set<PropertyDescription>?
    /// For a delete: the last values of the attributes marked
    /// ``AttributeDescription/preservesValueInHistoryOnDeletion``, by name (attributes whose value
    /// was nil are left out); `nil` for inserts, updates, and deletes with none marked.
    public let tombstone: [String: Any]?

    init(changeID: Int64, changedObjectID: ManagedObjectID, changeType: PersistentHistoryChangeType, updatedProperties: Set<PropertyDescription>?, tombstone: [String: Any]?) {
        self.changeID = changeID
        self.changedObjectID = changedObjectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }

    public var description: String {
        "<PersistentHistoryChange \(changeID) \(changeType) \(changedObjectID)>"
    }
}
