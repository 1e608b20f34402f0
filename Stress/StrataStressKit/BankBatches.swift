import Foundation
import Strata

/// Batch requests on the same rows the contexts edit: a batch insert opens accounts (empty, with
/// numbers no account has: an upsert onto an open account would reset its balance), a batch
/// delete sweeps emptied accounts (money cannot move: only accounts holding nothing go), a
/// batch update relabels the hot accounts every teller is moving money between. Both bump the versions of the rows they
/// touch (or remove them), so a context saving an edit read before gets a conflict and retries
/// — the ledger check then proves no update was lost. Their IDs are merged into the contexts
/// that merge automatically (the only ones whose changes never outlive one block: see
/// ``BankTopology``), and the final agreement check proves those merges brought them up to date.
extension BankWorkload {
    /// The contexts that merge batch results.
    var batchMergeTargets: [ManagedObjectContext] {
        tree.nodes.filter { $0.spec.automaticallyMerges }.map(\.context)
    }

    /// Deletes, with one batch delete, every account opened during the run that holds nothing.
    func batchSweep(at index: Int) {
        let context = tree[index]
        let initial = Int64(initialAccounts)
        let ids: [ManagedObjectID]? = context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Account")
            request.predicate = ObjectPredicate(format: "number >= %@ AND balance == 0", initial)
            let delete = BatchDeleteRequest(fetchRequest: request)
            delete.resultType = .resultTypeObjectIDs
            do {
                return (try context.execute(delete) as? BatchDeleteResult)?.result as? [ManagedObjectID] ?? []
            } catch {
                counters.absorb(error, during: "batch sweep in \(context.name ?? "?")")
                return nil
            }
        }
        guard let ids else { return }
        counters.batchRequests.add()
        counters.batchRows.add(ids.count)
        if !ids.isEmpty {
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.deletedObjectIDs: ids], into: batchMergeTargets)
        }
    }

    /// Sets the label of every hot account with one batch update.
    func batchRelabel(at index: Int, random: inout SeededGenerator) {
        let context = tree[index]
        let label = "batch-\(random.index(1_000))"
        let hot = Int64(hotAccounts)
        let ids: [ManagedObjectID]? = context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Account")
            update.predicate = ObjectPredicate(format: "number < %@", hot)
            update.propertiesToUpdate = ["label": label]
            update.resultType = .updatedObjectIDsResultType
            do {
                return (try context.execute(update) as? BatchUpdateResult)?.result as? [ManagedObjectID] ?? []
            } catch {
                counters.absorb(error, during: "batch relabel in \(context.name ?? "?")")
                return nil
            }
        }
        guard let ids else { return }
        counters.batchRequests.add()
        counters.batchRows.add(ids.count)
        if !ids.isEmpty {
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.updatedObjectIDs: ids], into: batchMergeTargets)
        }
    }

    /// Opens five empty accounts with one batch insert.
    func batchOpen(at index: Int) {
        let context = tree[index]
        let first = nextNumber.wrappingAdd(5, ordering: .relaxed).oldValue
        let ids: [ManagedObjectID]? = context.performAndWait {
            let rows: [[String: Any]] = (first..<first + 5).map { ["number": $0, "balance": Int64(0), "operations": Int64(0)] }
            let insert = BatchInsertRequest(entityName: "Account", objects: rows)
            insert.resultType = .objectIDs
            do {
                return (try context.execute(insert) as? BatchInsertResult)?.result as? [ManagedObjectID] ?? []
            } catch {
                counters.absorb(error, during: "batch open in \(context.name ?? "?")")
                return nil
            }
        }
        guard let ids else { return }
        counters.batchRequests.add()
        counters.batchRows.add(ids.count)
        counters.opened.add(ids.count)
        if !ids.isEmpty {
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [ManagedObjectContext.NotificationKey.insertedObjectIDs: ids], into: batchMergeTargets)
        }
    }
}
