import Foundation

/// What a store does for its coordinator: the coordinator's view of every store. The built-in
/// stores implement it directly (one SQL statement for a count or a dictionary fetch, nested
/// transactions for a save spanning several stores); a store written against the public seam
/// is reached through `IncrementalStoreBackend`, which builds these on its primitives.
/// Implementations are thread-safe: the coordinator calls them from the queues of many
/// contexts at once.
protocol StoreBackend: AnyObject, Sendable {
    /// The identity shared by every object ID of this store.
    var token: StoreToken { get }
    /// The store's metadata (its identifier, type, model version hashes, and app values).
    var metadata: [String: any Sendable] { get }
    /// Replaces the app-defined part of the metadata (Strata's own keys are kept) and writes it.
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
    /// The contents of a to-many relationship for each of `ids`, with the members' rows
    /// (prefetching). The default reads the contents, then the rows.
    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows
    /// Writes a change set in one transaction: all of it or none of it.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult
    /// Writes a change set in one transaction that stays open while `body` runs and commits
    /// after it returns; rolls back if the write or `body` throws. The coordinator nests the
    /// saves of several stores through `body`, so a save spanning them lands in all or none,
    /// except when a COMMIT fails after an inner store committed (reported as 134040).
    func save(_ changes: StoreChangeSet, holdingTransactionOpenFor body: () throws -> Void) throws -> StoreSaveResult
    /// Runs a batch update in one transaction: all of it or none of it. Returns the updated
    /// rows with their new versions. A store that tracks history records the update (one
    /// change per row) in the same transaction, with `origin`.
    func batchUpdate(_ plan: BatchUpdatePlan, origin: TransactionOrigin) throws -> BatchUpdateOutcome
    /// Runs a batch delete with the model's delete rules in one transaction: all of it or none
    /// of it. A store that tracks history records it (a delete per deleted row, an update per
    /// partner that lost one) in the same transaction, with `origin`.
    func batchDelete(_ plan: BatchDeletePlan, origin: TransactionOrigin) throws -> BatchDeleteOutcome
    /// Runs a batch insert in one transaction: all of it or none of it. Rows matching a stored
    /// row on one of the plan's uniqueness constraints update that row (upsert). A store that
    /// tracks history records it (an insert per new row, an update per upserted one) in the
    /// same transaction, with `origin`.
    func batchInsert(_ plan: BatchInsertPlan, origin: TransactionOrigin) throws -> BatchInsertOutcome
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

    func toManyRows(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> ToManyRows {
        try ToManyRows.byTwoReads(of: ids, relationship: relationship, options: options, contents: toManyIDs, rows: snapshots)
    }
}

/// The contents of a to-many relationship for some owners together with the members' rows, as
/// a prefetch reads them: `members[i]` are the members of the `i`-th owner asked for, in the
/// relationship's order; `rows` are the members' rows (each once).
struct ToManyRows {
    var members: [[ManagedObjectID]]
    var rows: [RowSnapshot]

    /// The contents by one read, then the rows of the members by another (for stores and parent
    /// contexts without a single read of both).
    static func byTwoReads(
        of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions,
        contents: ([ManagedObjectID], RelationshipDescription, ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]],
        rows: ([ManagedObjectID], ReadOptions) throws -> [RowSnapshot]
    ) throws -> ToManyRows {
        let loaded = try contents(ids, relationship, options)
        let members = ids.map { loaded[$0] ?? [] }
        var seen = Set<ManagedObjectID>()
        var wanted: [ManagedObjectID] = []
        for list in members {
            for id in list where !id.isTemporaryID && seen.insert(id).inserted { wanted.append(id) }
        }
        return ToManyRows(members: members, rows: wanted.isEmpty ? [] : try rows(wanted, options))
    }
}
