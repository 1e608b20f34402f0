import Foundation

/// `execute(_:)` of a ``BatchDeleteRequest``.
extension ManagedObjectContext {
    func executeBatchDelete(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        let coordinator = try batchCoordinator("batch delete")
        let merges = request.mergesChangesIntoContexts
        let returnsIDs = request.resultType == .resultTypeObjectIDs || merges
        var plans: [(store: PersistentStore, plan: BatchDeletePlan)] = []
        if let fetch = request.fetchRequest {
            let entity = try resolveEntity(of: fetch)
            let plan = try BatchDeletePlan.matching(
                entity: entity, predicate: fetch.predicate, sortDescriptors: fetch.sortDescriptors ?? [], limit: fetch.fetchLimit, offset: fetch.fetchOffset,
                includesSubentities: fetch.includesSubentities, returnsObjectIDs: returnsIDs, returnsChangedIDs: merges)
            for store in try coordinator.batchStores(for: entity, affectedStores: request.affectedStores, request: "Batch delete") {
                plans.append((store, plan))
            }
        } else if let ids = request.objectIDs, let entity = ids.first?.entity {
            // IDs of one entity, grouped by the store holding each.
            var byStore: [ObjectIdentifier: (store: PersistentStore, ids: [ManagedObjectID])] = [:]
            var order: [ObjectIdentifier] = []
            for id in ids {
                let store = try coordinator.store(for: id)
                let key = ObjectIdentifier(store)
                if byStore[key] == nil {
                    byStore[key] = (store, [])
                    order.append(key)
                }
                byStore[key]?.ids.append(id)
            }
            for key in order {
                guard let group = byStore[key] else { continue }
                let plan = try BatchDeletePlan.objects(group.ids, entity: entity, returnsObjectIDs: returnsIDs, returnsChangedIDs: merges)
                if let affected = request.affectedStores, !affected.contains(where: { $0 === group.store.incrementalStore }) { continue }
                plans.append((group.store, plan))
            }
        }
        let outcome = try coordinator.executeBatchDelete(plans, origin: transactionOrigin)
        if merges && !(outcome.deleted.isEmpty && outcome.changed.isEmpty) {
            Self.mergeChanges(
                fromRemoteContextSave: [NotificationKey.deletedObjectIDs: outcome.deleted, NotificationKey.updatedObjectIDs: outcome.changed],
                into: coordinator.contextsInTree())
        }
        return BatchDeleteResult(resultType: request.resultType, count: outcome.count, ids: outcome.deleted)
    }
}
