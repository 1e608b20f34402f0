import Foundation

/// What a persistent store does for its coordinator. Implementations are thread-safe: the
/// coordinator calls them from the queues of many contexts at once.
protocol StoreBackend: AnyObject, Sendable {
    /// The identity shared by every object ID of this store.
    var token: StoreToken { get }
    /// The store's metadata (its identifier, type, model version hashes, and app values).
    func metadata() -> [String: any Sendable]
    /// Replaces the app-defined part of the metadata (written at the next save).
    func setMetadata(_ metadata: [String: any Sendable]) throws

    // Reads: each reads the state `options.generation` holds for this store when there is
    // one, else the current state (the row-cache fields are the coordinator's business).

    /// Rows matching a plan, with their values.
    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot]
    /// IDs of the rows matching a plan, in order.
    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID]
    /// IDs of the rows matching a plan, in order, in compact form.
    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList
    /// Number of rows matching a plan (honouring limit and offset).
    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int
    /// The visible columns of a dictionary fetch's result rows.
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]]
    /// The rows of `ids` that still exist (any order).
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot]
    /// The contents of a to-many relationship for each of `ids` (every owner gets an entry).
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]]
    /// Writes a change set in one transaction: all of it or none of it.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult
    /// Writes a change set in one transaction that stays open while `body` runs and commits
    /// after it returns; rolls back if the write or `body` throws. The coordinator nests the
    /// saves of several stores through `body`, so a save spanning them lands in all or none,
    /// except when a COMMIT fails after an inner store committed (reported as 134040).
    func save(_ changes: StoreChangeSet, holdingTransactionOpenFor body: () throws -> Void) throws -> StoreSaveResult
    /// Hands out `count` new primary keys for rows of `entity`'s table.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64]
    /// Closes the store's connections.
    func close()
    /// Holds the store's current state for reads through a pinned query generation.
    func pinGeneration() throws -> any PinnedStoreState
    /// The object a pinned generation's state is filed under (what the store's read path looks
    /// up in ``ReadOptions/generation``).
    var generationKey: AnyObject { get }
}

extension StoreBackend {
    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList {
        ObjectIDList(try fetchIDs(plan, options: options), entity: plan.entity)
    }
}

/// What a store keeps for one pinned generation (a held read transaction, or a frozen state).
protocol PinnedStoreState: AnyObject, Sendable {
    /// Releases the held state.
    func release()
}

/// The inserted, updated and deleted rows of one save, in stored form.
struct StoreChangeSet: @unchecked Sendable {
    // @unchecked Sendable: built on the saving context's queue, then only read by the store;
    // holds frozen model descriptions.
    var inserts: [RowChange] = []
    var updates: [RowChange] = []
    var deletes: [RowDeletion] = []
    var toManyChanges: [ToManyChange] = []

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && toManyChanges.isEmpty }
}

/// One inserted or updated row. An inserted row whose ID is already permanent (from
/// `obtainPermanentIDs(for:)`) keeps that key.
struct RowChange {
    var objectID: ManagedObjectID
    /// The version the context last read (updates); 0 for inserts.
    var baseVersion: Int64
    var attributes: ContiguousArray<StoredValue>
    var toOne: ContiguousArray<ManagedObjectID?>
    /// For updates: the attribute slots that changed (all for inserts).
    var changedAttributeSlots: [Int]
    /// For updates: the to-one slots that changed.
    var changedToOneSlots: [Int]
    /// Whether an update may overwrite the row whatever its version (merge policies that let
    /// the object win).
    var ignoresVersion = false
    /// For updates: the values the saving context last read (a parent context compares them
    /// with its own, as a store compares versions).
    var base: RowSnapshot?
}

/// One deleted row.
struct RowDeletion {
    var objectID: ManagedObjectID
    var baseVersion: Int64
    var ignoresVersion = false
    /// The values the saving context last read (see ``RowChange/base``).
    var base: RowSnapshot?
}

/// The new contents of a to-many relationship of one object.
struct ToManyChange {
    var owner: ManagedObjectID
    var relationship: RelationshipDescription
    var added: [ManagedObjectID]
    var removed: [ManagedObjectID]
    /// For ordered relationships: the whole new order.
    var ordered: [ManagedObjectID]?
}

/// What a successful save did.
struct StoreSaveResult: Sendable {
    /// Temporary IDs of inserted objects and the permanent IDs they received.
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    /// The new row version of every inserted and updated object (by permanent ID).
    var versions: [ManagedObjectID: Int64] = [:]
}
