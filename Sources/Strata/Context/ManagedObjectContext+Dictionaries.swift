import Foundation

/// Dictionary results (`resultType = .dictionaryResultType`): values, key paths, expressions
/// and aggregates of the matching objects, grouped and filtered, one `NSDictionary` per result.
///
/// The SQLite store computes them with one SQL statement, from saved rows only: as in Core Data,
/// a context's (and its parents') unsaved changes do not count. With the Strata-only opt-in
/// `dictionaryResultsIncludePendingChanges` (and `includesPendingChanges`) they are computed in
/// memory from the merged objects instead when the context or a parent context has unsaved
/// changes to the fetched entities, with the same semantics.
extension ManagedObjectContext {
    func fetchDictionaries<T>(_ request: FetchRequest<T>, entity: EntityDescription) throws -> [Any] {
        let plan = try DictionaryPlan.make(request, entity: entity)
        let rows: [[RowEvaluator.Operand]]
        if plan.includesPendingChanges, hasPendingChanges(for: plan.rows) {
            rows = try dictionaryRowsInMemory(plan, options: .default)
        } else {
            rows = try requireParentStore().fetchDictionaryRows(plan, options: .default)
        }
        return rows.map { plan.dictionary(from: $0) }
    }

    /// The plan computed over this context's objects, unsaved changes included.
    private func dictionaryRowsInMemory(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        let objects: [any EvaluationRow] = try objects(matching: plan.rows, options: options)
        let visible = plan.visibleCount
        return try DictionaryEvaluator(plan: plan).evaluate(objects).map { Array($0.prefix(visible)) }
    }

    /// As a child context's parent store: computed here when the request opted in to pending
    /// changes and this context has unsaved changes to the fetched entities, else by this
    /// context's own parent store (with the child's options either way). Runs on this context's
    /// queue.
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        try performAndWait {
            if plan.includesPendingChanges, hasPendingChanges(for: plan.rows) { return try dictionaryRowsInMemory(plan, options: options) }
            return try requireParentStore().fetchDictionaryRows(plan, options: options)
        }
    }
}
