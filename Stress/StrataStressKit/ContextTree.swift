import Foundation
import Strata

/// A forest of contexts on one coordinator (roots, children, grandchildren), with the rule that
/// keeps synchronous waits deadlock-free: rule 3 of `docs/concurrency.md`, "waits only go up the tree".
///
/// Thread-safe: the tree is immutable once built and contexts are `Sendable`.
public final class ContextTree: Sendable {
    /// How to make one context of the tree.
    public struct Spec: Sendable {
        /// A name (shown in reports and concurrency-violation messages).
        public var name: String
        /// The index of the parent's spec (an earlier one), or `nil` for a root context.
        public var parent: Int?
        /// Private queue or main queue.
        public var concurrencyType: ManagedObjectContext.ConcurrencyType
        /// The merge policy used when the context saves.
        public var mergePolicy: MergePolicy
        /// Whether the context merges its parent's (a root: other roots') saves automatically.
        public var automaticallyMerges: Bool
        /// Whether the context keeps the objects it registered (so they can grow stale).
        public var retainsRegisteredObjects: Bool

        /// Describes a context.
        public init(
            _ name: String, parent: Int? = nil, concurrencyType: ManagedObjectContext.ConcurrencyType = .privateQueue,
            mergePolicy: MergePolicy = .error, automaticallyMerges: Bool = false, retainsRegisteredObjects: Bool = false
        ) {
            self.name = name
            self.parent = parent
            self.concurrencyType = concurrencyType
            self.mergePolicy = mergePolicy
            self.automaticallyMerges = automaticallyMerges
            self.retainsRegisteredObjects = retainsRegisteredObjects
        }
    }

    /// One context of the tree.
    public struct Node: Sendable {
        /// Its index in ``nodes``.
        public let index: Int
        /// The spec it was made from.
        public let spec: Spec
        /// 0 for a root, 1 for a child, …
        public let depth: Int
        /// The context.
        public let context: ManagedObjectContext
    }

    /// Every context, in spec order (a parent always before its children).
    public let nodes: [Node]

    /// Builds the contexts of `specs` on `coordinator`. Callable from any thread.
    public init(coordinator: PersistentStoreCoordinator, specs: [Spec]) {
        var nodes: [Node] = []
        for (index, spec) in specs.enumerated() {
            let context = ManagedObjectContext(concurrencyType: spec.concurrencyType)
            context.name = spec.name
            context.mergePolicy = spec.mergePolicy
            context.automaticallyMergesChangesFromParent = spec.automaticallyMerges
            context.retainsRegisteredObjects = spec.retainsRegisteredObjects
            var depth = 0
            if let parent = spec.parent, parent < index {
                context.parent = nodes[parent].context
                depth = nodes[parent].depth + 1
            } else {
                context.persistentStoreCoordinator = coordinator
            }
            nodes.append(Node(index: index, spec: spec, depth: depth, context: context))
        }
        self.nodes = nodes
    }

    /// The context at `index`.
    public subscript(index: Int) -> ManagedObjectContext { nodes[index].context }

    /// The index of the parent of `index`, if it is not a root.
    public func parent(of index: Int) -> Int? {
        guard let parent = nodes[index].spec.parent, parent < index else { return nil }
        return parent
    }

    /// The proper ancestors of `index`, nearest first.
    public func ancestors(of index: Int) -> [Int] {
        var result: [Int] = []
        var current = parent(of: index)
        while let next = current {
            result.append(next)
            current = parent(of: next)
        }
        return result
    }

    /// Whether no context of the tree has `index` as its parent.
    public func isLeaf(_ index: Int) -> Bool {
        !nodes.contains { $0.spec.parent == index && $0.index > index }
    }

    /// The root of `index`'s tree.
    public func root(of index: Int) -> Int { ancestors(of: index).last ?? index }

    /// The contexts a thread may wait for synchronously (`performAndWait`, or any call that
    /// fetches, faults or saves through a parent) while it runs blocks of the contexts `held`
    /// (outermost first):
    ///
    /// - any context it already runs a block of (the call runs inline, re-entrantly);
    /// - any proper ancestor of the *highest* context it runs a block of — that is, an ancestor
    ///   of every held context.
    ///
    /// Anything else — a child, a sibling, another tree, or a context below one of the held
    /// ones (child → grandparent → child → parent would hold the grandparent while waiting for
    /// the parent) — can deadlock against another thread that waits the other way, and is
    /// left to asynchronous `perform`. With nothing held, every context may be waited for.
    public func allowedWaits(held: [Int]) -> Set<Int> {
        guard let first = held.first else { return Set(nodes.indices) }
        var highest = first
        for index in held where nodes[index].depth < nodes[highest].depth { highest = index }
        return Set(held).union(ancestors(of: highest))
    }

    /// Whether work in `index` that goes through its parents (fetching, faulting, saving) is
    /// allowed while holding `held`: every ancestor of `index` must be an allowed wait.
    public func mayWorkThroughParents(of index: Int, held: [Int]) -> Bool {
        let allowed = allowedWaits(held: held)
        return ancestors(of: index).allSatisfy { allowed.contains($0) }
    }

    /// Waits until every context has run the blocks enqueued on it so far (a `performAndWait`
    /// on each, children first so that their saves have landed). Call it from a thread that
    /// holds no context; main-queue contexts need the main thread to service the main queue.
    public func drain() {
        for node in nodes.reversed() {
            node.context.performAndWait {}
        }
    }
}
