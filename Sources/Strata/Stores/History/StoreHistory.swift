import Foundation

/// One change as a store of the public seam records it in its persistent history and reads it
/// back (``IncrementalStore/keepsPersistentHistory``): the object, what happened to it, which
/// properties an update changed and what a delete preserved. Strata turns it into the
/// ``PersistentHistoryChange`` apps fetch.
///
/// A `Sendable` value (its tombstone holds attribute values, which are immutable): use it on
/// any thread.
public struct StoreHistoryChange: @unchecked Sendable {
    // @unchecked Sendable: IDs, names and attribute values (value types, URLs, transformed
    // values an app gave) that nobody mutates.

    /// The number of the change in the store's history, unique and rising (0 for a change not
    /// yet recorded, as ``SaveChangesRequest/historyChanges(permanentIDs:tombstones:)`` makes them).
    public var changeID: Int64
    /// The object that changed (its permanent ID).
    public var objectID: ManagedObjectID
    /// Whether it was inserted, updated or deleted.
    public var changeType: PersistentHistoryChangeType
    /// For an update: the names of the attributes and relationships that changed; nil otherwise.
    public var updatedProperties: [String]?
    /// For a delete: the values of the attributes marked
    /// ``AttributeDescription/preservesValueInHistoryOnDeletion``, by name, in their Swift types
    /// (as ``IncrementalStoreNode/value(forKey:)`` gives values; an attribute with no value is
    /// absent); nil otherwise, and nil for a delete of an entity that preserves none.
    public var tombstone: [String: Any]?

    /// A change of `objectID`.
    public init(changeID: Int64 = 0, objectID: ManagedObjectID, changeType: PersistentHistoryChangeType, updatedProperties: [String]? = nil, tombstone: [String: Any]? = nil) {
        self.changeID = changeID
        self.objectID = objectID
        self.changeType = changeType
        self.updatedProperties = updatedProperties
        self.tombstone = tombstone
    }
}

/// One transaction as a store of the public seam reads it back from its persistent history
/// (``IncrementalStore/fetchHistory(after:includingChanges:)``).
///
/// A `Sendable` value: use it on any thread.
public struct StoreHistoryTransaction: Sendable {
    /// The transaction's number in the store: unique, rising in commit order, never reused.
    public var transactionNumber: Int64
    /// When it committed.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public var contextName: String?
    /// Its changes in the order they were recorded; nil when they were not asked for.
    public var changes: [StoreHistoryChange]?

    /// A transaction read back from a store's history.
    public init(transactionNumber: Int64, timestamp: Date, author: String?, contextName: String?, changes: [StoreHistoryChange]?) {
        self.transactionNumber = transactionNumber
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }
}

extension SaveChangesRequest {
    /// The ``ManagedObjectContext/transactionAuthor`` of the context whose save this is (a
    /// store that keeps a persistent history records it with the transaction).
    public var transactionAuthor: String? { changes.origin.author }

    /// The ``ManagedObjectContext/name`` of the context whose save this is.
    public var contextName: String? { changes.origin.contextName }

    /// The changes a store that keeps a persistent history records for this save, once it has
    /// written it: one per inserted, updated and deleted object (an object whose only change is
    /// a to-many edit is an update naming the relationship), inserted objects under the
    /// permanent IDs the save gave them (`permanentIDs`, as in ``SaveChangesResult``), deleted
    /// ones with `tombstones[id]` (the values the store read of their preserved attributes;
    /// see ``StoreHistoryChange/tombstone``). Pure; any thread.
    public func historyChanges(permanentIDs: [ManagedObjectID: ManagedObjectID], tombstones: [ManagedObjectID: [String: Any]]) -> [StoreHistoryChange] {
        changes.historyChanges(permanentIDs: permanentIDs, tombstones: [:]).map { record in
            StoreHistoryChange(
                objectID: record.objectID, changeType: record.type, updatedProperties: record.updatedProperties,
                tombstone: record.type == .delete ? tombstones[record.objectID] : nil)
        }
    }
}

extension EntityDescription {
    /// The stored attributes whose values a deletion keeps in the persistent history
    /// (``AttributeDescription/preservesValueInHistoryOnDeletion``), in the entity's attribute
    /// order, inherited ones included. A store that keeps a history reads them before it
    /// deletes a row. Any thread, once the model is in use.
    public var attributesPreservedInHistory: [AttributeDescription] { layout.preservedAttributeSlots.map(\.attribute) }
}
