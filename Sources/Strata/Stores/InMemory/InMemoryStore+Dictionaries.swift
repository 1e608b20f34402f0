import Foundation

/// Dictionary fetches computed by the in-memory evaluator over the store's rows.
extension InMemoryStore {
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        let current = snapshotState(options)
        let index = InMemoryToManyIndex(store: self, state: current)
        var matched: [any EvaluationRow] = []
        for row in Self.rowsInKeyOrder(current.tables[plan.rows.entity.rootEntity.name] ?? [:]) {
            let storedRow = StoredRow(snapshot: row, index: index)
            if try plan.rows.matches(storedRow) { matched.append(storedRow) }
        }
        let visible = plan.visibleCount
        return try DictionaryEvaluator(plan: plan).evaluate(matched).map { Array($0.prefix(visible)) }
    }
}
