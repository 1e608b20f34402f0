import Foundation

/// What a context needs from its parent store: the coordinator for a root context, the parent
/// context for a child. Both are thread-safe; a parent context runs each call on its own queue
/// (the child waits for it: waits only go up the tree).
protocol ParentStore: AnyObject, Sendable {
    /// Rows matching a plan (the parent's unsaved changes included, for a parent context).
    func fetchRows(_ plan: FetchPlan) throws -> [RowSnapshot]
    /// IDs matching a plan, in order.
    func fetchIDs(_ plan: FetchPlan) throws -> [ManagedObjectID]
    /// IDs matching a plan, in order, in compact form (for large batched fetches).
    func fetchIDList(_ plan: FetchPlan) throws -> ObjectIDList
    /// Number of matches.
    func count(_ plan: FetchPlan) throws -> Int
    /// The visible columns of a dictionary fetch's result rows (the parent's unsaved changes
    /// included, for a parent context).
    func fetchDictionaryRows(_ plan: DictionaryPlan) throws -> [[RowEvaluator.Operand]]
    /// Current rows of `ids` (missing ones omitted). The coordinator may answer from its row
    /// cache with snapshots no older than `maxAge` seconds (negative: any age; 0: never).
    func snapshots(for ids: [ManagedObjectID], maxAge: TimeInterval) throws -> [RowSnapshot]
    /// Contents of a to-many relationship for each of `ids`.
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription) throws -> [ManagedObjectID: [ManagedObjectID]]
    /// Applies a child's save (a context) or writes it (the coordinator).
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult
    /// Permanent IDs for unsaved objects of `entity`.
    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID]
    /// The coordinator at the root of the tree.
    var rootCoordinator: PersistentStoreCoordinator? { get }
}

extension ParentStore {
    /// Current rows of `ids`, from any cache regardless of age.
    func snapshots(for ids: [ManagedObjectID]) throws -> [RowSnapshot] {
        try snapshots(for: ids, maxAge: -1)
    }
}
