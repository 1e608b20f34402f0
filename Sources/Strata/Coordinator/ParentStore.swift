import Foundation

/// What a context needs from its parent store: the coordinator for a root context, the parent
/// context for a child. Both are thread-safe; a parent context runs each call on its own queue
/// (the child waits for it: waits only go up the tree).
///
/// **Transient relationships** go up only: a child's save carries them into a parent context
/// (which keeps them in memory; the coordinator drops them before its stores), but no read
/// reports them: snapshots hold nil in their to-one slots and a transient to-many's contents
/// are empty, so an object a child faults in starts with them empty, as in another context.
protocol ParentStore: AnyObject, Sendable {
    // Reads: `options` say how (through which query generation, whether the row cache is
    // filled, how old a cached row may be); a parent context passes them on to its own parent.

    /// Rows matching a plan (the parent's unsaved changes included, for a parent context).
    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot]
    /// IDs matching a plan, in order.
    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID]
    /// IDs matching a plan, in order, in compact form (for large batched fetches).
    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList
    /// Number of matches.
    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int
    /// The visible columns of a dictionary fetch's result rows (the parent's unsaved changes
    /// included, for a parent context).
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]]
    /// Current rows of `ids` (missing ones omitted). The coordinator may answer from its row
    /// cache with snapshots no older than `options.maxAge` seconds (negative: any age; 0: never).
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot]
    /// Contents of a to-many relationship for each of `ids`.
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]]
    /// Contents of a to-many relationship for each of `ids` with the members' rows (one read
    /// where the store can; a parent context answers with its unsaved changes, by two reads).
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows
    /// Applies a child's save (a context) or writes it (the coordinator).
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult
    /// Permanent IDs for unsaved objects of `entity`.
    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID]
    /// The coordinator at the root of the tree.
    var rootCoordinator: PersistentStoreCoordinator? { get }
}

extension ParentStore {
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows {
        try ToManyRows.byTwoReads(of: ids, relationship: relationship, options: options, contents: toManyIDs, rows: snapshots)
    }
}

/// The answer of a parent store to `toManyIDs` for a transient relationship: an empty list
/// for every owner (see ``ParentStore``).
func emptyToManyContents(of ids: [ManagedObjectID]) -> [ManagedObjectID: [ManagedObjectID]] {
    Dictionary(ids.map { ($0, []) }, uniquingKeysWith: { first, _ in first })
}
