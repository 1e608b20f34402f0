import Foundation

/// A store written against the public seam (``IncrementalStore``'s primitives), as the
/// coordinator uses every store (`StoreBackend`). The built-in stores are their own backends,
/// with direct paths; this adapter builds the same operations on the primitives: IDs and counts
/// from fetched rows, dictionary and aggregate fetches by the in-memory engine, key allocation
/// through `obtainPermanentIDs`. Thread-safe as the store is.
final class IncrementalStoreBackend: StoreBackend {
    let store: IncrementalStore

    init(_ store: IncrementalStore) { self.store = store }

    var token: StoreToken { store.token }
    var metadata: [String: any Sendable] { store.metadata }
    func setMetadata(_ metadata: [String: any Sendable]) throws { try store.setMetadata(metadata) }
    func close() { store.close() }
    func pinGeneration() throws -> any PinnedStoreState { try store.pinGeneration() }

    /// Rows matching a plan, with their values. The store answers in one call, so an
    /// asynchronous fetch's watcher is asked before it and told the count after it.
    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        try options.watcher?.rowsRead(0)
        let list = try StoreReadClock.reading { try store.fetchRowList(StoreFetchRequest(plan: plan), options: options) }
        try options.watcher?.finished(list.count)
        return list.rows
    }

    /// IDs of the rows matching a plan, in order (reported to a watcher as rows are).
    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        try options.watcher?.rowsRead(0)
        let ids = try store.fetchObjectIDs(StoreFetchRequest(plan: plan), options: options)
        try options.watcher?.finished(ids.count)
        return ids
    }

    /// Number of rows matching a plan (honouring limit and offset).
    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        try store.countRows(StoreFetchRequest(plan: plan), options: options)
    }

    /// The visible columns of a dictionary fetch's result rows: run by the store when it can
    /// (``IncrementalStore/fetchDictionaryRows(_:options:)``, for simple plans), else computed
    /// by the in-memory engine over the rows the plan's row part matches.
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        if let request = StoreDictionaryFetchRequest(plan: plan), let rows = try store.fetchDictionaryRows(request, options: options) {
            return try rows.map { row in
                guard row.count == request.columns.count else {
                    throw StrataError(
                        code: StrataError.Code.persistentStoreOperation,
                        message: "\(type(of: store)).fetchDictionaryRows(_:options:) returned a row of \(row.count) values for \(request.columns.count) columns", url: store.url)
                }
                return try zip(row, request.columns).map { value, term in .value(try StoreDictionaryFetchRequest.stored(value, for: term, store: store)) }
            }
        }
        let whole = plan.rows.with(limit: 0, offset: 0)
        let resolver = NodeResolver(store: store, options: options)
        let rows: [any EvaluationRow] = try fetchRows(whole, options: options).map { NodeRow(node: $0, resolver: resolver) }
        let result = try plan.visibleRows(ofMatching: rows)
        if let error = resolver.error { throw error }
        return result
    }

    /// A batch update: run by the store when it can (``IncrementalStore/executeBatchUpdate(_:)``),
    /// else the matching rows read and saved back with their new values.
    func batchUpdate(_ plan: BatchUpdatePlan, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        if let result = try store.executeBatchUpdate(StoreBatchUpdateRequest(plan: plan, origin: origin)) {
            return BatchUpdateOutcome(count: result.count, ids: plan.returnsObjectIDs ? result.updatedObjectIDs : [])
        }
        return try plan.runByRows(on: self, store: store, origin: origin)
    }

    /// A batch delete: run by the store when it can (``IncrementalStore/executeBatchDelete(_:)``),
    /// else the rows it reaches read and deleted as one save. A store's result must name as many
    /// deleted objects as it counts when they are asked for.
    func batchDelete(_ plan: BatchDeletePlan, origin: TransactionOrigin) throws -> BatchDeleteOutcome {
        guard let result = try store.executeBatchDelete(StoreBatchDeleteRequest(plan: plan, store: token, origin: origin)) else {
            return try plan.runByRows(on: self, origin: origin)
        }
        guard !plan.returnsObjectIDs || result.deletedObjectIDs.count == result.count else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "\(type(of: store)).executeBatchDelete(_:) named \(result.deletedObjectIDs.count) deleted objects for a count of \(result.count)",
                entityName: plan.entity.name, url: store.url)
        }
        var outcome = BatchDeleteOutcome(count: result.count, deleted: plan.returnsObjectIDs ? result.deletedObjectIDs : [])
        if plan.returnsChangedIDs {
            outcome.changed = result.changedObjectIDs
            outcome.changedProperties = result.lostRelationships
        }
        return outcome
    }

    /// A batch insert: run by the store when it can (``IncrementalStore/executeBatchInsert(_:)``),
    /// else the rows saved as one change set, upserts as updates.
    func batchInsert(_ plan: BatchInsertPlan, origin: TransactionOrigin) throws -> BatchInsertOutcome {
        guard plan.count > 0, let result = try store.executeBatchInsert(StoreBatchInsertRequest(plan: plan, origin: origin)) else {
            return try plan.runByRows(on: self, origin: origin)
        }
        guard !plan.returnsObjectIDs || result.objectIDs.count == plan.count else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "\(type(of: store)).executeBatchInsert(_:) named \(result.objectIDs.count) objects for \(plan.count) rows", entityName: plan.entity.name, url: store.url)
        }
        return BatchInsertOutcome(count: plan.count, ids: plan.returnsObjectIDs ? result.objectIDs : [], updatedIDs: plan.returnsObjectIDs ? result.updatedObjectIDs : [])
    }

    /// The rows of `ids` that still exist (any order).
    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        try StoreReadClock.reading { try store.newValuesRowList(forObjectsWith: ids, options: options) }.rows
    }

    /// The contents of a to-many relationship for each of `ids` (every owner gets an entry).
    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try store.newValues(forRelationship: relationship, forObjectsWith: ids, options: options)
    }

    /// Writes a change set: all of it or none of it.
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        try store.save(SaveChangesRequest(changes: changes))
    }

    /// Writes a change set in one transaction that stays open while `body` runs and commits
    /// after it returns; rolls back if the write or `body` throws. The coordinator nests the
    /// saves of several stores through `body`, so a save spanning them lands in all or none,
    /// except when a COMMIT fails after an inner store committed (reported as 134040). The
    /// default saves first and then runs `body`: a store outside Strata cannot hold its
    /// transaction open, so it is nested outermost and a failure after it saved is reported
    /// as an incomplete save (134040).
    func save(_ changes: StoreChangeSet, holdingTransactionOpenFor body: () throws -> Void) throws -> StoreSaveResult {
        let result = try save(changes)
        try body()
        return result
    }

    /// Hands out `count` new primary keys for rows of `entity`'s table.
    func allocatePrimaryKeys(for entity: EntityDescription, count: Int) throws -> [Int64] {
        let ids = try store.obtainPermanentIDs(for: entity, count: count)
        let keys = ids.compactMap { store.referenceObject(for: $0) }
        guard keys.count == count else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "\(type(of: store)).obtainPermanentIDs(for:count:) returned \(keys.count) IDs of this store for \(count) objects", entityName: entity.name, url: store.url)
        }
        return keys
    }

    /// The object a pinned generation's state is filed under (what the store's read path looks
    /// up in ``ReadOptions/generation``).
    var generationKey: AnyObject { store }
}
