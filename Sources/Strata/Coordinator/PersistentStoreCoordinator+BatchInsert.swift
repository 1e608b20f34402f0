import Foundation

/// Batch inserts, routed to the store that takes new objects of the entity.
extension PersistentStoreCoordinator {
    /// Runs `plan` on the first store that holds its entity (the first among `affectedStores`,
    /// when given), in one transaction: the store a context's save puts new objects of the
    /// entity in. When the plan has uniqueness constraints its rows may update stored rows:
    /// afterwards no snapshot of the entity's tree read before the insert stays in (or enters)
    /// the row cache. Plain inserts only add rows, which no cached snapshot holds. `origin` (the
    /// executing context's author and name) goes to the store's history. Callable from any
    /// thread.
    func executeBatchInsert(_ plan: BatchInsertPlan, affectedStores: [IncrementalStore]?, origin: TransactionOrigin) throws -> BatchInsertOutcome {
        let entity = plan.entity
        guard let store = try batchStores(for: entity, affectedStores: affectedStores, request: "Batch insert").first else { return BatchInsertOutcome() }
        let outcome = try store.backend.batchInsert(plan, origin: origin)
        if !plan.constraints.isEmpty { rowCache.invalidateTrees([entity.layout.rootIdentifier], readBefore: RowSnapshot.now()) }
        return outcome
    }
}
