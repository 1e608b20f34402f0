import Foundation
import StrataLocks

/// A persistent store: the one seam between a coordinator and the data (Core Data's
/// `NSIncrementalStore`). The SQLite and in-memory stores are subclasses; so is any store an app
/// writes, registered with `PersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`.
///
/// ## Writing a store
/// Subclass and override the primitives below; the coordinator builds everything else on them
/// (identities, faulting, relationship loading, counting, dictionary and aggregate fetches,
/// multi-store saves):
///
/// | primitive | what it does |
/// |---|---|
/// | ``loadMetadata()`` | opens the store and returns its metadata (with ``StoreMetadataKey/storeUUID``) |
/// | ``fetchRows(_:options:)`` | the rows a fetch request matches, in its order and window |
/// | ``newValuesForObjects(with:options:)`` | the current rows of some objects (firing faults) |
/// | ``fetchRowList(_:options:)``, ``newValuesRowList(forObjectsWith:options:)`` (optional) | the same rows as an ``IncrementalStoreRowList``, without a node object per row (the defaults wrap the two above) |
/// | ``newValues(forRelationship:forObjectsWith:options:)`` | the members of a to-many relationship |
/// | ``save(_:)`` | applies a save's inserts, updates, deletes and to-many changes, all or nothing |
/// | ``obtainPermanentIDs(for:count:)`` | hands out new primary keys |
///
/// A store that keeps rows in memory can leave predicates, sorting and windows to Strata:
/// ``StoreFetchRequest/evaluate(_:in:options:)`` runs the request over candidate rows with the
/// same in-memory engine the in-memory store uses. A store that translates requests (to SQL, to
/// a server's query language) reads the request's public parts instead.
///
/// ## Where Strata differs from `NSIncrementalStore`
/// - No context is passed: stores are called by the coordinator from the queues of many contexts
///   at once, and objects never cross queues. Rows cross as ``IncrementalStoreNode``s.
/// - Reference objects are `Int64` primary keys (``newObjectID(for:referenceObject:)``); a store
///   whose keys are something else keeps its own map.
/// - Optimistic locking is the store's job: ``save(_:)`` receives the version each update and
///   delete was based on, and throws ``StrataError`` 133020 with ``MergeConflict``s when the row
///   moved on, so merge policies resolve conflicts for every store alike.
/// - Changes other processes or servers commit reach Strata through
///   ``noteChangesMadeElsewhere(inserted:updated:deleted:historyTransactionNumber:)``: contexts that merge automatically
///   merge them, as Core Data's incremental stores would have to arrange by hand.
/// - Query generations: a store that cannot hold an old state keeps the default
///   ``pinGeneration()``, and pinned contexts then read its current state (as for Core Data's
///   incremental stores, which support no query generations at all).
///
/// Subclasses are thread-safe: the coordinator calls them from many threads at once.
open class IncrementalStore: @unchecked Sendable {
    // @unchecked Sendable: the base class's state is immutable or guarded by a lock (the
    // metadata by `metadataLock`, the token's identifier by its own); subclasses say why they
    // are safe.

    /// The model the store holds objects of.
    public let model: ManagedObjectModel
    /// The configuration (group of entities) the store holds; `nil` for all entities.
    public let configurationName: String?
    /// The store's location, if it has one.
    public let url: URL?
    /// The options the store was added with (``PersistentStoreOption`` keys and the store's own).
    public let options: [String: any Sendable]

    /// The identity shared by every object ID of this store (from the metadata's UUID).
    let token: StoreToken
    private let metadataLock = StrataLock<[String: any Sendable]>([:])
    /// Where ``noteChangesMadeElsewhere(inserted:updated:deleted:historyTransactionNumber:)`` reports to: set by the
    /// coordinator the store is added to, cleared when it is removed.
    let changesElsewhereHandler = StrataLock<(@Sendable (ChangesMadeElsewhere) -> Void)?>(nil)

    /// Creates the store. The coordinator calls ``loadMetadata()`` next, before anything else;
    /// open files or connections in either. Throw a ``StrataError`` saying what failed.
    public required init(model: ManagedObjectModel, configurationName: String?, url: URL?, options: [String: any Sendable]) throws {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        // Keys the coordinator adds for the built-in stores (prefix `_Strata`) are not the app's.
        self.options = options.filter { !$0.key.hasPrefix("_Strata") }
        self.token = StoreToken(identifier: UUID().uuidString)
    }

    deinit {
        // The token interns the ID spaces of this store's entities, and each holds the token:
        // break that cycle (IDs that outlive the store keep their spaces).
        token.retire()
    }

    // MARK: The primitives a store overrides

    /// Opens the store and returns its metadata, which must hold a unique, stable
    /// ``StoreMetadataKey/storeUUID`` (object IDs and their URIs carry it) and should hold
    /// ``StoreMetadataKey/storeType``. Called once, by the coordinator, right after `init`.
    open func loadMetadata() throws -> [String: any Sendable] {
        throw Self.missingOverride("loadMetadata()")
    }

    /// Stores `metadata` (the app's keys and Strata's) so that the next ``loadMetadata()`` of
    /// the same store returns it. The default keeps it in memory only.
    open func writeMetadata(_ metadata: [String: any Sendable]) throws {}

    /// The rows `request` matches, in its sort order, after its offset and up to its limit.
    /// Each node carries every stored attribute and to-one of its object.
    open func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        throw Self.missingOverride("fetchRows(_:options:)")
    }

    /// ``fetchRows(_:options:)`` as a row list: the form Strata reads a fetch's rows in. The
    /// default wraps the nodes `fetchRows(_:options:)` returns; a store that reads many rows
    /// overrides it (and answers `fetchRows(_:options:)` with the list's ``IncrementalStoreRowList/nodes``)
    /// to hand them over without a node object per row. Called on any thread.
    open func fetchRowList(_ request: StoreFetchRequest, options: ReadOptions) throws -> IncrementalStoreRowList {
        IncrementalStoreRowList(try fetchRows(request, options: options))
    }

    /// The IDs of the rows `request` matches, in order. The default fetches the rows.
    open func fetchObjectIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
        try fetchRows(request, options: options).map(\.objectID)
    }

    /// How many rows `request` matches (within its offset and limit). The default fetches the rows.
    open func countRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> Int {
        try fetchRows(request, options: options).count
    }

    /// The current rows of the objects `ids` names that still exist, in any order (Core Data's
    /// `newValuesForObject(with:with:)`, for many objects at once).
    open func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
        throw Self.missingOverride("newValuesForObjects(with:options:)")
    }

    /// ``newValuesForObjects(with:options:)`` as a row list: the form Strata reads the rows of
    /// faults it fires in. The default wraps the nodes `newValuesForObjects(with:options:)`
    /// returns; a store overrides it as it does ``fetchRowList(_:options:)``. Called on any thread.
    open func newValuesRowList(forObjectsWith ids: [ManagedObjectID], options: ReadOptions) throws -> IncrementalStoreRowList {
        IncrementalStoreRowList(try newValuesForObjects(with: ids, options: options))
    }

    /// The members of a to-many relationship for each owner in `ids` (every owner gets an entry;
    /// an ordered relationship's members in order), as Core Data's
    /// `newValue(forRelationship:forObjectWith:with:)` does for one owner.
    open func newValues(forRelationship relationship: RelationshipDescription, forObjectsWith ids: [ManagedObjectID], options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        throw Self.missingOverride("newValues(forRelationship:forObjectsWith:options:)")
    }

    /// Applies a save: all of it or none of it. Gives each inserted object a permanent ID (with
    /// ``newObjectID(for:referenceObject:)``, or the one it already has when it is permanent) and
    /// returns the new version of every inserted and updated row. Throws ``StrataError`` 133020
    /// (`StrataError.Code.managedObjectMerge`) with ``MergeConflict``s when an update or delete was
    /// based on a version the store no longer has, unless it ignores versions.
    open func save(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        throw Self.missingOverride("save(_:)")
    }

    /// `count` new permanent IDs for objects of `entity` (keys are unique per inheritance tree).
    open func obtainPermanentIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        throw Self.missingOverride("obtainPermanentIDs(for:count:)")
    }

    /// Holds the store's current state so that reads through the returned state see it until
    /// it is released (a query generation). The default holds nothing: reads through it see the
    /// current state.
    open func pinGeneration() throws -> any PinnedStoreState {
        UnpinnedStoreState()
    }

    /// Closes files and connections; the store is not used afterwards.
    open func close() {}

    /// Runs a batch update itself, in one transaction (one `UPDATE` statement for a store that
    /// speaks SQL), or returns nil to have Strata run it: by reading the matching rows and
    /// saving their new values through ``save(_:)`` with optimistic locking. All of it or none
    /// of it. The default returns nil. A store that runs it bumps each updated row's version
    /// (contexts holding the rows refresh them: the coordinator drops them from its cache).
    open func executeBatchUpdate(_ request: StoreBatchUpdateRequest) throws -> StoreBatchUpdateResult? { nil }

    /// Runs a batch insert itself, in one transaction (one `INSERT … ON CONFLICT` for a store
    /// that speaks SQL), or returns nil to have Strata run it as one ``save(_:)`` (upserts as
    /// updates with optimistic locking). All of it or none of it: every row is written. The
    /// default returns nil. New rows get keys as ``obtainPermanentIDs(for:count:)`` hands them
    /// out, and version 1.
    open func executeBatchInsert(_ request: StoreBatchInsertRequest) throws -> StoreBatchInsertResult? { nil }

    /// Runs a batch delete itself, in one transaction (a few `DELETE` and `UPDATE` statements
    /// for a store that speaks SQL), with the delete rules the request lists, or returns nil to
    /// have Strata run it: by reading the starting rows, the rows their cascades reach and the
    /// partners that lose one, and saving that as one change set through ``save(_:)`` with
    /// optimistic locking. All of it or none of it: a `deny` rule that refuses throws and
    /// deletes nothing. The default returns nil. A store that runs it gives every row that
    /// stays but lost a partner a new version. Called by the coordinator on the executing
    /// context's queue; stores are called from many threads at once.
    open func executeBatchDelete(_ request: StoreBatchDeleteRequest) throws -> StoreBatchDeleteResult? { nil }

    /// Runs a dictionary fetch itself (one `SELECT … GROUP BY` for a store that speaks SQL) and
    /// returns its result rows — for each row the value of every column of
    /// ``StoreDictionaryFetchRequest/columns``, in order: an attribute's, minimum's or maximum's
    /// value in the attribute's Swift type (as ``IncrementalStoreNode/value(forKey:)`` gives
    /// values), a count or sum as `Int64` (a sum of floating-point values, or one beyond 64 bits,
    /// as `Double`), an average as `Double`, nil for no value — or returns nil to have Strata
    /// compute it over the rows ``fetchRows(_:options:)`` returns for the request's `rows`. The
    /// results must be exactly Strata's (see ``StoreDictionaryFetchRequest``). Reads through the
    /// query generation `options` names, if any. The default returns nil. Callable from any
    /// thread.
    open func fetchDictionaryRows(_ request: StoreDictionaryFetchRequest, options: ReadOptions) throws -> [[Any?]]? { nil }

    /// Whether the store reports changes other processes or servers make to its data, through
    /// ``noteChangesMadeElsewhere(inserted:updated:deleted:historyTransactionNumber:)``. Such a store may be added with
    /// ``PersistentStoreOption/remoteChangeNotificationPost``. Default false.
    open var reportsChangesMadeElsewhere: Bool { false }

    // MARK: Persistent history

    /// Whether the store keeps a persistent history now: true when it was added with
    /// ``PersistentStoreOption/persistentHistoryTracking`` and records every save and batch
    /// request in its history (with ``SaveChangesRequest/historyChanges(permanentIDs:tombstones:)``,
    /// in the same transaction, numbered in commit order) and answers the four history methods
    /// below. Default false: adding the store with tracking on is then refused (134000-range
    /// `persistentStoreInvalidType`). Callable from any thread.
    open var keepsPersistentHistory: Bool { false }

    /// The transactions after `bound` (numbered above it, or committed after its date), in
    /// commit order, with their changes when `includingChanges`. Called only when
    /// ``keepsPersistentHistory``; the default throws 134070. Callable from any thread.
    open func fetchHistory(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction] {
        throw historyNotKept()
    }

    /// The number of changes in the transactions after `bound`. Called only when
    /// ``keepsPersistentHistory``; the default throws 134070. Callable from any thread.
    open func countOfHistoryChanges(after bound: StoreHistoryBound) throws -> Int {
        throw historyNotKept()
    }

    /// Deletes, in one transaction, the transactions numbered up to and including `bound`'s
    /// number (or committed before its date) with their changes, and returns how many changes
    /// went. Called only when ``keepsPersistentHistory``; the default throws 134070. Callable
    /// from any thread.
    open func deleteHistoryTransactions(before bound: StoreHistoryBound) throws -> Int {
        throw historyNotKept()
    }

    /// The number of the last transaction recorded (0 when none; numbers stay rising after a
    /// deletion of history). Called only when ``keepsPersistentHistory``; the default throws
    /// 134070. Callable from any thread.
    open func newestHistoryTransactionNumber() throws -> Int64 {
        throw historyNotKept()
    }

    /// The error of a history method on a store that keeps no history.
    private func historyNotKept() -> StrataError {
        StrataError(
            code: StrataError.Code.persistentStoreOperation,
            message: "\(type(of: self)) keeps no persistent history (add the store with PersistentStoreOption.persistentHistoryTracking)", url: url)
    }

    // MARK: Changes made elsewhere

    /// Tells Strata that rows of this store changed outside this coordinator: another process
    /// or another server committed them. `updated` maps each updated object to its new row
    /// version (a store that does not know it passes `Int64.max`). The coordinator drops the
    /// rows from its row cache (refusing, for a while, any older read of them that races this
    /// call), merges the changes into its root contexts that have
    /// `automaticallyMergesChangesFromParent` (as a did-save of another context is merged, on
    /// each context's queue, without waiting), and posts `.persistentStoreRemoteChange` when
    /// the store was added with ``PersistentStoreOption/remoteChangeNotificationPost``.
    /// A store that keeps a persistent history passes the number of the history transaction
    /// that recorded the changes as `historyTransactionNumber`: the notification then carries
    /// its ``PersistentStoreCoordinator/RemoteChangeKey/historyToken``.
    /// Callable from any thread, once the store was added; IDs of other stores are ignored.
    public final func noteChangesMadeElsewhere(
        inserted: [ManagedObjectID], updated: [ManagedObjectID: Int64], deleted: [ManagedObjectID], historyTransactionNumber: Int64? = nil
    ) {
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty, let handler = changesElsewhereHandler.withLock({ $0 }) else { return }
        let mine = { (id: ManagedObjectID) in id.store === self.token }
        handler(
            ChangesMadeElsewhere(
                inserted: inserted.filter(mine), updated: updated.filter { mine($0.key) }, deleted: deleted.filter(mine),
                historyTransactionNumber: historyTransactionNumber))
    }

    // MARK: Core Data's one-object forms

    /// The current row of one object (Core Data's `newValuesForObject(with:with:)`, without the
    /// context): ``newValuesForObjects(with:options:)`` for one ID, reading the current state.
    /// Throws 133000 (`managedObjectReferentialIntegrity`) when the row does not exist.
    public final func newValuesForObject(with objectID: ManagedObjectID) throws -> IncrementalStoreNode {
        guard let node = try newValuesForObjects(with: [objectID], options: .default).first else {
            throw StrataError(
                code: StrataError.Code.managedObjectReferentialIntegrity, message: "The store has no row for \(objectID.uriRepresentation().absoluteString)",
                entityName: objectID.entityName, objectID: objectID, url: url)
        }
        return node
    }

    /// The value of a relationship of one object (Core Data's
    /// `newValue(forRelationship:forObjectWith:with:)`, without the context): the members of a
    /// to-many as `[ManagedObjectID]` (in order for an ordered one), the target of a to-one as
    /// `ManagedObjectID?`.
    public final func newValue(forRelationship relationship: RelationshipDescription, forObjectWith objectID: ManagedObjectID) throws -> Any {
        if relationship.isToMany {
            return try newValues(forRelationship: relationship, forObjectsWith: [objectID], options: .default)[objectID] ?? []
        }
        return try newValuesForObject(with: objectID).value(forKey: relationship.name) as? ManagedObjectID as Any
    }

    // MARK: Identities

    /// The object ID of the row of `entity` whose key is `referenceObject`.
    public final func newObjectID(for entity: EntityDescription, referenceObject: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, primaryKey: referenceObject, store: token)
    }

    /// The key of the row `objectID` names, if it is a permanent ID of this store.
    public final func referenceObject(for objectID: ManagedObjectID) -> Int64? {
        guard objectID.store === token else { return nil }
        return objectID.primaryKey
    }

    /// The store's unique identifier (its metadata's UUID).
    public final var identifier: String { token.identifier }

    /// The store's metadata as last loaded or written. Callable from any thread.
    public final var metadata: [String: any Sendable] { metadataLock.withLock { $0 } }

    // MARK: What the coordinator calls

    /// Loads the metadata and takes the store's identity from it. Called once by the coordinator
    /// before the store is shared.
    func load() throws {
        let loaded = try loadMetadata()
        guard let uuid = loaded[StoreMetadataKey.storeUUID] as? String, !uuid.isEmpty else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOpen,
                message: "\(type(of: self)).loadMetadata() returned no '\(StoreMetadataKey.storeUUID)': every store needs a stable unique identifier", url: url)
        }
        token.assign(identifier: uuid)
        metadataLock.withLock { $0 = loaded }
    }

    /// Replaces the app-defined part of the metadata (Strata's own keys are kept) and writes it.
    func setMetadata(_ metadata: [String: any Sendable]) throws {
        var merged = metadata
        let current = self.metadata
        for key in StoreMetadataKey.strataKeys { merged[key] = current[key] }
        try writeMetadata(merged)
        metadataLock.withLock { $0 = merged }
    }

    private static func missingOverride(_ name: String) -> StrataError {
        StrataError(code: StrataError.Code.persistentStoreOperation, message: "\(Self.self) does not override IncrementalStore.\(name), which every store must implement")
    }
}

/// Changes a store reports as made outside its coordinator
/// (``IncrementalStore/noteChangesMadeElsewhere(inserted:updated:deleted:historyTransactionNumber:)``).
struct ChangesMadeElsewhere: Sendable {
    let inserted: [ManagedObjectID]
    /// Updated objects and their new row versions.
    let updated: [ManagedObjectID: Int64]
    let deleted: [ManagedObjectID]
    /// The history transaction that recorded them, when the store keeps a history.
    let historyTransactionNumber: Int64?
}

/// The pinned state of a store that cannot hold an old state: it holds nothing, and reads through
/// it see the current state.
final class UnpinnedStoreState: PinnedStoreState {
    func release() {}
}
