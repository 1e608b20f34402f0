import Foundation

/// Who wrote a transaction: the saving (or batch-running) context's
/// ``ManagedObjectContext/transactionAuthor`` and ``ManagedObjectContext/name``. Travels with a
/// root save's change set (`StoreChangeSet.origin`) and with batch requests to the store, which
/// records it in the persistent history when tracking is on.
struct TransactionOrigin: Sendable, Hashable {
    var author: String?
    var contextName: String?
}

/// One change as a store records it in its history (before it has a change number).
struct HistoryChangeRecord: @unchecked Sendable {
    // @unchecked Sendable: IDs and stored values only; frozen model descriptions.
    var objectID: ManagedObjectID
    var type: PersistentHistoryChangeType
    /// For updates: the names of the changed attributes and relationships.
    var updatedProperties: [String]? = nil
    /// For deletes: the stored values of the attributes that keep theirs in history.
    var tombstone: [String: StoredValue]? = nil
}

/// One transaction as a store reads it back from its history.
struct HistoryTransactionRecord: @unchecked Sendable {
    // @unchecked Sendable: see HistoryChangeRecord.
    var number: Int64
    var timestamp: Date
    var origin: TransactionOrigin
    /// The changes with their numbers (`nil` when not asked for).
    var changes: [(changeID: Int64, record: HistoryChangeRecord)]?
}

/// Which part of a store's history a request reads or deletes: what a history request names,
/// as every store receives it (``IncrementalStore/fetchHistory(after:includingChanges:)``,
/// ``IncrementalStore/deleteHistoryTransactions(before:)``).
///
/// A `Sendable` value: use it on any thread.
public enum StoreHistoryBound: Sendable, Hashable {
    /// Transactions numbered above (fetch) or up to and including (delete) this number.
    case transactionNumber(Int64)
    /// Transactions committed after (fetch) or before (delete) this date.
    case date(Date)
}

/// The name the built-in stores use for ``StoreHistoryBound``.
typealias HistoryBound = StoreHistoryBound

/// What a store that keeps a persistent history does for its coordinator. The SQLite store
/// keeps it in its own tables (written in the save's transaction), the in-memory store in
/// memory; a store written against the public seam keeps it when it overrides
/// ``IncrementalStore/keepsPersistentHistory`` (IncrementalStoreBackend+History.swift adapts
/// it; tracking on one that does not is refused when it is added). Thread-safe.
protocol HistoryStoreBackend: AnyObject, Sendable {
    /// Whether the store was added with ``PersistentStoreOption/persistentHistoryTracking``.
    var tracksHistory: Bool { get }
    /// The transactions after `bound`, in commit order, with their changes when `withChanges`.
    func fetchHistory(after bound: HistoryBound, withChanges: Bool) throws -> [HistoryTransactionRecord]
    /// The number of changes in the transactions after `bound`.
    func countHistoryChanges(after bound: HistoryBound) throws -> Int
    /// Deletes the transactions up to `bound` (see ``HistoryBound``) with their changes, in one
    /// transaction; returns how many changes went.
    func deleteHistory(before bound: HistoryBound) throws -> Int
    /// The number of the last transaction recorded (0 when none).
    func lastHistoryTransactionNumber() throws -> Int64
    /// Starts posting a remote-change notification through `post` after every transaction
    /// (this process's and, for a file, other processes'), until the store closes.
    func startRemoteChangeNotifications(_ post: @escaping @Sendable (Int64?) -> Void) throws
}

extension StoreChangeSet {
    /// The history records of this change set once written: one per inserted, updated and
    /// deleted row (to-many edits count as updates of their owner, naming the relationship),
    /// with the permanent IDs a save handed out. `tombstones` are the deleted rows' preserved
    /// values, read before the delete. O(rows + changed slots).
    func historyChanges(permanentIDs: [ManagedObjectID: ManagedObjectID], tombstones: [ManagedObjectID: [String: StoredValue]]) -> [HistoryChangeRecord] {
        historyChanges(saved: SaveChangesResult(permanentIDs: permanentIDs), tombstones: tombstones)
    }

    /// The same, with the permanent IDs as the save reported them (by insert position or by
    /// temporary ID: `SaveChangesResult.insertedIDs`).
    func historyChanges(saved result: SaveChangesResult, tombstones: [ManagedObjectID: [String: StoredValue]]) -> [HistoryChangeRecord] {
        var records: [HistoryChangeRecord] = []
        records.reserveCapacity(inserts.count + updates.count + deletes.count)
        var toManyNames: [ManagedObjectID: [String]] = [:]
        for change in toManyChanges { toManyNames[change.owner, default: []].append(change.relationship.name) }
        var seen = Set<ManagedObjectID>()
        seen.reserveCapacity(toManyChanges.isEmpty ? 0 : inserts.count + updates.count)
        var permanentIDs = PermanentIDLookup(result)
        for index in inserts.indices {
            let temporary = inserts[index].objectID
            if !toManyChanges.isEmpty { seen.insert(temporary) }
            let permanent = permanentIDs.permanentID(ofInsertAt: index, temporary: temporary) ?? temporary
            records.append(HistoryChangeRecord(objectID: permanent, type: .insert))
        }
        // Updated rows mostly share one change shape (see `UnitOfWork.makeChangeSet(keepingBases:)`): the
        // names of the last shape are reused, so a row costs no array of its own.
        var lastShape: (layout: EntityLayout, attributeSlots: [Int], toOneSlots: [Int], names: [String])?
        // The changes are read in place, field by field: `for update in updates` copied each
        // one whole (six references retained and released), two thirds of this function's time
        // in a profile of a 20k-object save.
        updates.withUnsafeBufferPointer { updates in
            for index in updates.indices {
                let id = updates[index].objectID
                let layout = id.entity.layout
                var names: [String]
                if let shape = lastShape, shape.layout === layout, shape.attributeSlots == updates[index].changedAttributeSlots,
                    shape.toOneSlots == updates[index].changedToOneSlots
                {
                    names = shape.names
                } else {
                    names = []
                    for slot in updates[index].changedAttributeSlots where slot < layout.storedAttributes.count { names.append(layout.storedAttributes[slot].name) }
                    for slot in updates[index].changedToOneSlots where slot < layout.toOneRelationships.count { names.append(layout.toOneRelationships[slot].name) }
                    lastShape = (layout, updates[index].changedAttributeSlots, updates[index].changedToOneSlots, names)
                }
                if !toManyChanges.isEmpty {
                    seen.insert(id)
                    names += toManyNames[id] ?? []
                }
                records.append(HistoryChangeRecord(objectID: id, type: .update, updatedProperties: names))
            }
        }
        var deleted = Set<ManagedObjectID>()
        for deletion in deletes { deleted.insert(deletion.objectID) }
        // An object whose only change was a to-many edit is updated too.
        for change in toManyChanges where !seen.contains(change.owner) && !deleted.contains(change.owner) {
            seen.insert(change.owner)
            var id = change.owner
            if id.isTemporaryID { id = permanentIDs.permanentID(for: id) ?? id }
            records.append(HistoryChangeRecord(objectID: id, type: .update, updatedProperties: toManyNames[change.owner]))
        }
        for deletion in deletes {
            records.append(HistoryChangeRecord(objectID: deletion.objectID, type: .delete, tombstone: tombstones[deletion.objectID]))
        }
        return records
    }
}

extension EntityLayout {
    /// The stored attributes whose values a deletion keeps in history, with their slots.
    var preservedAttributeSlots: [(slot: Int, attribute: AttributeDescription)] {
        storedAttributes.enumerated().compactMap { $0.element.preservesValueInHistoryOnDeletion ? ($0.offset, $0.element) : nil }
    }
}

extension [String: any Sendable] {
    /// Whether these store options turn persistent history tracking on.
    var tracksPersistentHistory: Bool { (self[PersistentStoreOption.persistentHistoryTracking] as? Bool) ?? false }
    /// Whether these store options ask for remote-change notifications.
    var postsRemoteChangeNotifications: Bool { (self[PersistentStoreOption.remoteChangeNotificationPost] as? Bool) ?? false }
}
