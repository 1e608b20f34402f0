import Foundation

/// Dictionary fetches, routed to the store holding the entity.
extension PersistentStoreCoordinator {
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        try store(for: plan.rows.entity).backend.fetchDictionaryRows(plan, options: options)
    }
}
