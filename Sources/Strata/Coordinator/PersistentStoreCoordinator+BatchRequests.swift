import Foundation

/// Batch requests, routed to the stores that hold the entity.
extension PersistentStoreCoordinator {
    /// The stores a batch request on `entity` runs on: every store that holds it, only those
    /// among `affectedStores` when given. Throws when there is none. `request` names the request
    /// in the error.
    func batchStores(for entity: EntityDescription, affectedStores: [IncrementalStore]?, request: String) throws -> [PersistentStore] {
        var stores = persistentStores.filter { $0.holds(entity) }
        if let affectedStores {
            stores = stores.filter { store in affectedStores.contains { $0 === store.incrementalStore } }
        }
        guard !stores.isEmpty else {
            throw StrataError(
                code: StrataError.Code.coreData,
                message: "\(request) of \(entity.name): no \(affectedStores == nil ? "" : "affected ")store of this coordinator holds the entity", entityName: entity.name)
        }
        return stores
    }

    /// Runs `plan` on every store that holds its entity (only those among `affectedStores`,
    /// when given), one transaction per store. Afterwards no snapshot of the entity's tree read
    /// before the update stays in (or enters) the row cache. `origin` (the executing context's
    /// author and name) goes to the stores' history. Callable from any thread.
    func executeBatchUpdate(_ plan: BatchUpdatePlan, affectedStores: [IncrementalStore]?, origin: TransactionOrigin) throws -> BatchUpdateOutcome {
        let entity = plan.rows.entity
        var total = BatchUpdateOutcome()
        for store in try batchStores(for: entity, affectedStores: affectedStores, request: "Batch update") {
            let outcome = try store.backend.batchUpdate(plan, origin: origin)
            rowCache.invalidateTrees([entity.layout.rootIdentifier], readBefore: RowSnapshot.now())
            total.count += outcome.count
            total.ids += outcome.ids
        }
        return total
    }

    /// Runs each plan on its store, one transaction per store (a failure leaves the stores of
    /// earlier plans deleted, as a batch update across stores does). Afterwards no snapshot read
    /// before the delete of a table it touched (deleted rows, partners that lost one) stays in
    /// (or enters) the row cache. `origin` goes to the stores' history. Callable from any thread.
    func executeBatchDelete(_ plans: [(store: PersistentStore, plan: BatchDeletePlan)], origin: TransactionOrigin) throws -> BatchDeleteOutcome {
        var total = BatchDeleteOutcome()
        for (store, plan) in plans {
            let outcome = try store.backend.batchDelete(plan, origin: origin)
            rowCache.invalidateTrees(plan.rules.touchedRoots, readBefore: RowSnapshot.now())
            total.count += outcome.count
            total.deleted += outcome.deleted
            total.changed += outcome.changed
        }
        return total
    }
}
