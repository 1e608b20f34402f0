import Foundation
import Strata

/// The operations that read, move saved work up the tree, merge, reset and audit.
extension BankWorkload {
    /// Saves `index` into its parent, then the parent into its own, up to the root, which
    /// writes to the store: one `performAndWait` per level, from a thread holding no context. A
    /// level whose save conflicts is rolled back (with what its children saved into it).
    func flush(from index: Int) {
        for level in [index] + tree.ancestors(of: index) {
            let context = tree[level]
            context.performAndWait {
                guard context.hasChanges else { return }
                do {
                    try context.save()
                } catch {
                    counters.absorb(error, during: "flushing \(context.name ?? "?")")
                    recover(context, index: level, after: error)
                }
            }
        }
    }

    /// Fetches the hot accounts (or all) and looks at every balance.
    func read(at index: Int, random: inout SeededGenerator) {
        let everything = random.chance(0.2)
        let hot = (0..<hotAccounts).map(Int64.init)
        let context = tree[index]
        context.performAndWait {
            do {
                for account in try context.fetch(BankModel.accounts(numbers: everything ? nil : hot)) { inspect(account, in: context) }
            } catch {
                counters.fail("read in \(context.name ?? "?"): \(error)")
            }
        }
    }

    /// A child reads inside a chain of re-entrant waits: its block waits for its parent, whose
    /// block calls back into the child (inline, on the same thread — or, for a main-queue
    /// parent run on the main thread, on the main thread with the child's queue lent to it).
    ///
    /// Checked, each time (a violation is counted in ``chainViolations`` and fails the run):
    /// the innermost child block runs on the very thread that runs the parent's block (the
    /// child's queue is re-entered or lent, never handed to another thread); the parent's block
    /// runs on the worker's thread, or on the main thread for a main-queue parent; and the
    /// innermost fetch sees exactly the hot accounts (never closed), in number order.
    func chainRead(at index: Int, random: inout SeededGenerator) {
        guard let parentIndex = tree.parent(of: index) else { return read(at: index, random: &random) }
        let context = tree[index]
        let parent = tree[parentIndex]
        let hot = (0..<hotAccounts).map(Int64.init)
        let viaMainQueue = parent.concurrencyType == .mainQueue
        let name = context.name ?? "?"
        let problems: [String] = context.performAndWait {
            let outerThread = pthread_self()
            return parent.performAndWait {
                let parentThread = pthread_self()
                let onMainThread = Thread.isMainThread
                if viaMainQueue {
                    mainQueueChains.add()
                    if onMainThread { mainQueueChainsOnMainThread.add() }
                }
                let inner: (thread: pthread_t, problems: [String]) = context.performAndWait {
                    var problems: [String] = []
                    do {
                        let accounts = try context.fetch(BankModel.accounts(numbers: hot))
                        for account in accounts { inspect(account, in: context) }
                        let numbers = accounts.map(\.number)
                        if numbers != hot { problems.append("the innermost fetch saw accounts \(numbers), expected \(hot)") }
                    } catch {
                        counters.fail("chain read in \(name): \(error)")
                    }
                    return (pthread_self(), problems)
                }
                var problems = inner.problems
                if pthread_equal(inner.thread, parentThread) == 0 {
                    problems.append("the child's re-entered block ran on another thread than its parent's block")
                }
                if pthread_equal(parentThread, outerThread) == 0 && !(viaMainQueue && onMainThread) {
                    problems.append("the parent's block ran on another thread than the waiting child's (and not on the main thread for a main-queue parent)")
                }
                return problems
            }
        }
        chainsCompleted.add()
        if !problems.isEmpty {
            chainViolations.add()
            counters.fail("re-entrant chain through \(name): " + problems.joined(separator: "; "))
        }
    }

    /// Fetches accounts as bare faults (IDs only) and fires them one by one through the parents.
    func faultWalk(at index: Int, random: inout SeededGenerator) {
        let offset = random.index(max(1, hotAccounts))
        let context = tree[index]
        context.performAndWait {
            let request = BankModel.accounts()
            request.includesPropertyValues = false
            request.fetchLimit = 12
            request.fetchOffset = offset
            do {
                for account in try context.fetch(request) {
                    try account.fulfillFault()
                    inspect(account, in: context)
                }
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectReferentialIntegrity && error.objectID?.isTemporaryID == true {
                // An account opened below a parent that rolled it back between the fetch and
                // the fault: it no longer exists anywhere (Core Data fails the same way).
            } catch {
                counters.fail("fault walk in \(context.name ?? "?"): \(error)")
            }
        }
    }

    /// In a context pinned to a query generation, the money adds up exactly, whatever others
    /// save meanwhile. `advance` moves the pin to the current state first.
    func audit(at index: Int, advance: Bool) {
        let context = tree[index]
        let expected = BankModel.totalMoney(initialAccounts: initialAccounts)
        context.performAndWait {
            do {
                if advance || context.queryGenerationToken == nil {
                    try context.setQueryGenerationFrom(.current)
                    context.refreshAllObjects()
                }
                let request = BankModel.accounts()
                request.shouldRefreshRefetchedObjects = true
                request.returnsObjectsAsFaults = false
                let accounts = try context.fetch(request)
                let total = accounts.reduce(Int64(0)) { $0 + $1.balance }
                counters.pinnedAudits.add()
                if total != expected {
                    counters.pinnedAuditFailures.add()
                    counters.fail("pinned audit in \(context.name ?? "?"): total \(total), expected \(expected) (\(accounts.count) accounts)")
                }
                for account in accounts { inspect(account, in: context) }
            } catch {
                counters.fail("pinned audit in \(context.name ?? "?"): \(error)")
            }
        }
    }

    /// `mergeChanges(fromContextDidSave:)` with the latest root save, into a context with no
    /// unsaved changes (merging into unsaved changes lets local values win: see ``BankTopology``).
    func manualMerge(at index: Int) {
        guard let changes = recentSaves.withLock({ $0.last }) else { return }
        let context = tree[index]
        context.performAndWait {
            guard !context.hasChanges else { return }
            let notification = Notification(
                name: .managedObjectContextDidSave, object: nil,
                userInfo: [
                    ManagedObjectContext.NotificationKey.insertedObjectIDs: changes.inserted,
                    ManagedObjectContext.NotificationKey.updatedObjectIDs: changes.updated,
                    ManagedObjectContext.NotificationKey.deletedObjectIDs: changes.deleted,
                ])
            context.mergeChanges(fromContextDidSave: notification)
            counters.merges.add()
        }
    }

    /// `mergeChanges(fromRemoteContextSave:into:)`: the merge runs later, asynchronously, on the
    /// context's queue (only for contexts whose changes never outlive one block).
    func remoteMerge(at index: Int) {
        guard let changes = recentSaves.withLock({ $0.last }) else { return }
        ManagedObjectContext.mergeChanges(
            fromRemoteContextSave: [
                ManagedObjectContext.NotificationKey.insertedObjectIDs: changes.inserted,
                ManagedObjectContext.NotificationKey.updatedObjectIDs: changes.updated,
                ManagedObjectContext.NotificationKey.deletedObjectIDs: changes.deleted,
            ], into: [tree[index]])
        counters.merges.add()
    }

    /// `reset()` (after dropping unsaved changes) on a context no other context saves into.
    func reset(at index: Int) {
        guard tree.isLeaf(index) else { return refresh(at: index) }
        let context = tree[index]
        context.performAndWait {
            context.rollback()
            context.reset()
        }
        counters.resets.add()
    }

    /// `refreshAllObjects()` on a context without unsaved changes (unchanged objects become
    /// faults). With unsaved changes it would make changed objects current while keeping their
    /// values — a lost update for a read-modify-write saved later, so parents holding their
    /// children's work are skipped.
    func refresh(at index: Int) {
        let context = tree[index]
        context.performAndWait {
            guard !context.hasChanges else { return }
            context.refreshAllObjects()
            counters.resets.add()
        }
    }
}
