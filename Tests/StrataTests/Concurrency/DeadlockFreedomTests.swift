import Foundation
import Strata
import StrataStressKit
import StrataTestSupport
import Testing

/// Deadlock freedom of context trees (rule 3 of `docs/concurrency.md`: waits only go up the tree).
///
/// Many explicit threads run seeded random patterns of nested `performAndWait` and `perform`
/// over roots, children, grandchildren and siblings, mixed with inserts, updates, saves up the
/// tree, fetches and faults through parents. A thread waits synchronously only for a context
/// it already runs (inline re-entry) or for an ancestor of every context it runs; siblings,
/// children and other trees are reached only asynchronously or through their common parent.
/// (A sibling `performAndWait` chain — A's block waits for B while B's block waits for A —
/// deadlocks in Core Data too, and is not something a context tree can prevent.)
/// Every test has a watchdog: a deadlock fails it after a bound instead of hanging.
@Suite("Deadlock freedom of context trees")
struct DeadlockFreedomTests {
    /// Two private roots, each with two children and two grandchildren under each child, plus a
    /// main-queue root with a private child and grandchild, and a main-queue child (with its own
    /// private child) under the first root: 18 contexts. Merge policies and automatic merges vary.
    static func specs(includeMainQueue: Bool) -> [ContextTree.Spec] {
        var specs: [ContextTree.Spec] = []
        for tree in 0..<2 {
            let root = specs.count
            specs.append(.init("root\(tree)", mergePolicy: tree == 0 ? .error : .mergeByPropertyObjectTrump, automaticallyMerges: tree == 1))
            for child in 0..<2 {
                let childIndex = specs.count
                specs.append(.init("root\(tree).child\(child)", parent: root, mergePolicy: .mergeByPropertyStoreTrump, automaticallyMerges: child == 0, retainsRegisteredObjects: child == 1))
                for grandchild in 0..<2 {
                    specs.append(.init("root\(tree).child\(child).grandchild\(grandchild)", parent: childIndex, mergePolicy: .mergeByPropertyObjectTrump, automaticallyMerges: grandchild == 0))
                }
            }
        }
        if includeMainQueue {
            let main = specs.count
            specs.append(.init("main", concurrencyType: .mainQueue, mergePolicy: .mergeByPropertyObjectTrump, automaticallyMerges: true))
            specs.append(.init("main.child", parent: main, mergePolicy: .rollback, automaticallyMerges: true))
            specs.append(.init("main.child.grandchild", parent: main + 1, mergePolicy: .overwrite))
            specs.append(.init("root0.view", parent: 0, concurrencyType: .mainQueue, mergePolicy: .mergeByPropertyObjectTrump, automaticallyMerges: true))
            specs.append(.init("root0.view.editor", parent: specs.count - 1, mergePolicy: .mergeByPropertyObjectTrump))
        }
        return specs
    }

    /// Runs `threads` walkers of `operations` steps each from `seed`, then drains the queues.
    func run(seed: UInt64, threads: Int, operations: Int, budget: Int, includeMainQueue: Bool) throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let tree = ContextTree(coordinator: stack.coordinator, specs: Self.specs(includeMainQueue: includeMainQueue))
        let stats = NestingStats()
        let root = SeededGenerator(seed: seed)
        let outcome = ThreadRunner.run(count: threads, timeout: 60) { index in
            let walker = NestingWalker(tree: tree, stats: stats, seed: root.derivedSeed(UInt64(index)))
            walker.run(operations: operations, budget: budget)
        }
        if !outcome.finished {
            // Slow or stuck? A deadlock makes no more progress.
            let before = stats.blocks.current
            Thread.sleep(forTimeInterval: 5)
            let progress = stats.blocks.current - before
            Issue.record(
                "watchdog (seed \(seed)): threads still running after 60 s, \(progress) blocks in the last 5 s\(progress == 0 ? " — a deadlock" : ""); \(stats.summary)\n\(stats.blockedReport)")
        }
        #expect(outcome.errors.isEmpty, "seed \(seed): \(outcome.errors.joined(separator: "; "))")
        guard outcome.finished else { return }
        // Asynchronous blocks (which may enqueue more) finish too, within a bound.
        let drained = ThreadRunner.run(count: 1, timeout: 60) { _ in
            while stats.pendingAsync.current > 0 { Thread.sleep(forTimeInterval: 0.005) }
            tree.drain()
        }
        #expect(drained.finished, "watchdog (seed \(seed)): asynchronous blocks did not finish; \(stats.summary)")
        let unexpected = stats.unexpected.withLock { $0 }
        #expect(unexpected.isEmpty, "unexpected errors: \(unexpected.prefix(5))")
        #expect(stats.inlineReentries.current > 0 && stats.waitsUp.current > 0 && stats.saves.current > 0, "\(stats.summary)")
    }

    @Test("random nested perform/performAndWait on private-queue trees from 8 threads", arguments: [UInt64(1), 2, 3, 20_240_601])
    func privateTrees(seed: UInt64) throws {
        try run(seed: seed, threads: 8, operations: 150, budget: 4, includeMainQueue: false)
    }

    @Test("random nested patterns including main-queue contexts (roots and children) from 6 threads", arguments: [UInt64(7), 8, 99])
    func withMainQueue(seed: UInt64) throws {
        try run(seed: seed, threads: 6, operations: 120, budget: 4, includeMainQueue: true)
    }

    @Test("the wait rule: held contexts run inline; only ancestors of every held context may be waited for")
    func waitRule() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let tree = ContextTree(
            coordinator: stack.coordinator,
            specs: [
                .init("root"), .init("child", parent: 0), .init("grandchild", parent: 1), .init("sibling", parent: 0), .init("other root"),
            ])
        #expect(tree.allowedWaits(held: []) == [0, 1, 2, 3, 4])
        #expect(tree.allowedWaits(held: [2]) == [2, 1, 0])
        #expect(tree.allowedWaits(held: [1]) == [1, 0])
        // grandchild → root (skipping the child): the thread holds the root, so waiting for the
        // child would wait downwards.
        #expect(tree.allowedWaits(held: [2, 0]) == [2, 0])
        #expect(!tree.mayWorkThroughParents(of: 2, held: [2, 0, 2]))
        #expect(tree.mayWorkThroughParents(of: 2, held: [2, 1, 2]))
        #expect(!tree.allowedWaits(held: [1]).contains(3))  // never a sibling
        #expect(!tree.allowedWaits(held: [0]).contains(4))  // never another tree
    }
}
