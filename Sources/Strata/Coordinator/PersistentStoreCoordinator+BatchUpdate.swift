import Foundation

/// Batch updates, routed to the stores that hold the entity.
extension PersistentStoreCoordinator {
    /// Runs `plan` on every store that holds its entity (only those among `affectedStores`,
    /// when given), one transaction per store. Afterwards no snapshot of the entity's tree read
    /// before the update stays in (or enters) the row cache. `origin` (the executing context's
    /// author and name) goes to the stores' history. Callable from any thread.
    func executeBatchUpdate(_ plan: BatchUpdatePlan, affectedStores: [IncrementalStore]?, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        let entity = plan.rows.entity
        var stores = persistentStores.filter { $0.holds(entity) }
        if let affectedStores {
            stores = stores.filter { store in affectedStores.contains { $0 === store.incrementalStore } }
        }
        guard !stores.isEmpty else {
            throw StrataError(
                code: StrataError.Code.coreData,
                message: "Batch update of \(entity.name): no \(affectedStores == nil ? "" : "affected ")store of this coordinator holds the entity", entityName: entity.name)
        }
        var total = BatchUpdateOutcome()
        for store in stores {
            let outcome = try store.backend.batchUpdate(plan, origin: origin)
            rowCache.invalidateTrees([entity.layout.rootIdentifier], readBefore: RowSnapshot.now())
            total.count += outcome.count
            total.ids += outcome.ids
        }
        return total
    }
}
