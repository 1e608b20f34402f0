import Foundation

/// Batch inserts, routed to the store that takes new objects of the entity.
extension PersistentStoreCoordinator {
    /// Runs `plan` on the first store that holds its entity (the first among `affectedStores`,
    /// when given), in one transaction: the store a context's save puts new objects of the
    /// entity in. When the plan has uniqueness constraints its rows may update stored rows:
    /// afterwards no snapshot of the entity's tree read before the insert stays in (or enters)
    /// the row cache. Plain inserts only add rows, which no cached snapshot holds. Callable from
    /// any thread.
    func executeBatchInsert(_ plan: BatchInsertPlan, affectedStores: [IncrementalStore]?) throws -> BatchInsertOutcome {
        let entity = plan.entity
        var stores = persistentStores.filter { $0.holds(entity) }
        if let affectedStores {
            stores = stores.filter { store in affectedStores.contains { $0 === store.incrementalStore } }
        }
        guard let store = stores.first else {
            throw StrataError(
                code: StrataError.Code.coreData,
                message: "Batch insert of \(entity.name): no \(affectedStores == nil ? "" : "affected ")store of this coordinator holds the entity", entityName: entity.name)
        }
        let outcome = try store.backend.batchInsert(plan)
        if !plan.constraints.isEmpty { rowCache.invalidateTrees([entity.layout.rootIdentifier], readBefore: RowSnapshot.now()) }
        return outcome
    }
}
