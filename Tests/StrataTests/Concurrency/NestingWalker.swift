import Foundation
import Strata
import StrataLocks
import StrataSQLite
import StrataStressKit
import StrataTestSupport

/// Counters shared by every walker of one run. Thread-safe.
final class NestingStats: Sendable {
    let blocks = AtomicCounter()
    let inlineReentries = AtomicCounter()
    let waitsUp = AtomicCounter()
    let asyncBlocks = AtomicCounter()
    let pendingAsync = AtomicCounter()
    let saves = AtomicCounter()
    let fetches = AtomicCounter()
    let faults = AtomicCounter()
    let conflicts = AtomicCounter()
    let unexpected = StrataLock<[String]>([])
    /// What each walker is doing right now (its held contexts and what it waits for), by walker
    /// number, for the watchdog's report.
    let activity = StrataLock<[Int: String]>([:])
    let nextWalker = AtomicCounter()

    /// The walkers blocked in a wait, with what they hold.
    var blockedReport: String {
        activity.withLock { $0.sorted { $0.key < $1.key }.map { "walker \($0.key): \($0.value)" }.joined(separator: "\n") }
    }

    func record(_ error: any Error, seed: UInt64) {
        if let error = error as? StrataError,
            error.code == StrataError.Code.managedObjectMerge || error.code == StrataError.Code.managedObjectConstraintMerge
        {
            conflicts.add()
            return
        }
        unexpected.withLock { $0.append("seed \(seed): \(error)") }
    }

    var summary: String {
        "\(blocks.current) blocks, \(inlineReentries.current) inline re-entries, \(waitsUp.current) waits up, "
            + "\(asyncBlocks.current) async blocks, \(saves.current) saves, \(fetches.current) fetches, "
            + "\(faults.current) faults, \(conflicts.current) conflicts"
    }
}

/// Runs random nested `perform`/`performAndWait` patterns on a ``ContextTree`` from one thread,
/// mixed with real work (inserts, updates, saves up the tree, fetches and faults through
/// parents), waiting synchronously only where ``ContextTree/allowedWaits(held:)`` allows and
/// reaching everything else (children, siblings, other trees) with asynchronous `perform`.
///
/// Used on one thread at a time (each asynchronous block gets a walker of its own).
final class NestingWalker {
    let tree: ContextTree
    let stats: NestingStats
    let seed: UInt64
    var random: SeededGenerator
    /// The contexts whose blocks this thread is inside, outermost first.
    private(set) var held: [Int] = []
    let number: Int

    init(tree: ContextTree, stats: NestingStats, seed: UInt64) {
        self.tree = tree
        self.stats = stats
        self.seed = seed
        self.random = SeededGenerator(seed: seed)
        self.number = stats.nextWalker.add()
    }

    private func note(_ what: String?) {
        let names = held.map { tree.nodes[$0].spec.name }.joined(separator: " > ")
        stats.activity.withLock { $0[number] = what.map { "holds [\(names)] \($0)" } }
    }

    /// Runs `operations` top-level steps, each entering a random context.
    func run(operations: Int, budget: Int) {
        for _ in 0..<operations {
            let target = random.index(tree.nodes.count)
            if random.chance(0.25) {
                spawnAsync(on: target, budget: budget)
            } else {
                enter(target, budget: budget)
            }
        }
    }

    /// Runs a random body inside `index`'s block, synchronously.
    func enter(_ index: Int, budget: Int) {
        let context = tree[index]
        let inline = held.contains(index) || (context.concurrencyType == .mainQueue && Thread.isMainThread)
        if inline { stats.inlineReentries.add() } else if !held.isEmpty { stats.waitsUp.add() }
        note("waits for \(tree.nodes[index].spec.name)")
        held.append(index)
        defer {
            held.removeLast()
            note(nil)
        }
        context.performAndWait {
            note("runs")
            stats.blocks.add()
            body(in: index, budget: budget)
        }
    }

    /// Enqueues a block on `index` that runs a walker of its own.
    func spawnAsync(on index: Int, budget: Int) {
        let tree = self.tree
        let stats = self.stats
        let seed = random.next()
        stats.pendingAsync.add()
        stats.asyncBlocks.add()
        tree[index].perform {
            defer { stats.pendingAsync.add(-1) }
            let walker = NestingWalker(tree: tree, stats: stats, seed: seed)
            walker.held = [index]
            stats.blocks.add()
            walker.body(in: index, budget: budget)
            walker.note(nil)
        }
    }

    /// One to three random steps in the context `index`, whose block this thread is running.
    func body(in index: Int, budget: Int) {
        let context = tree[index]
        let throughParents = tree.mayWorkThroughParents(of: index, held: held)
        for _ in 0...random.index(3) {
            do {
                switch random.index(10) {
                case 0, 1:
                    try insert(in: context)
                case 2 where throughParents:
                    stats.saves.add()
                    note("saves")
                    do {
                        try context.save()
                    } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge {
                        // The usual answer to a conflict: refresh the objects (keeping the
                        // changes) so that the next save writes over the new versions.
                        for conflict in error.conflicts {
                            if let object = context.registeredObject(for: conflict.objectID) { context.refresh(object, mergeChanges: true) }
                        }
                        throw error
                    }
                case 3 where throughParents:
                    stats.fetches.add()
                    let request = FetchRequest<ManagedObject>(entityName: "Person")
                    request.predicate = ObjectPredicate(format: "age >= %@", random.index(50))
                    request.fetchLimit = 20
                    _ = try context.fetch(request).count
                case 4 where throughParents:
                    try faultAndUpdate(in: context)
                case 5 where budget > 0, 6 where budget > 0:
                    let allowed = tree.allowedWaits(held: held).sorted()
                    enter(allowed[random.index(allowed.count)], budget: budget - 1)
                case 7 where budget > 0:
                    spawnAsync(on: random.index(tree.nodes.count), budget: budget - 1)
                case 8 where random.chance(0.2) && tree.isLeaf(index):
                    // Only where no child holds the objects it would discard: a child's fault
                    // on an object its parent rolled back fails, in Core Data too.
                    context.rollback()
                default:
                    _ = context.hasChanges
                }
            } catch {
                stats.record(error, seed: seed)
            }
        }
    }

    private func insert(in context: ManagedObjectContext) throws {
        guard let entity = context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"] else { return }
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue("p\(random.index(1_000))", forKey: "name")
        person.setValue(random.index(50), forKey: "age")
    }

    /// Fetches a few objects as faults, fires them (through the parents) and changes one.
    private func faultAndUpdate(in context: ManagedObjectContext) throws {
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.returnsObjectsAsFaults = true
        request.includesPropertyValues = false
        request.fetchLimit = 5
        request.fetchOffset = random.index(20)
        let objects = try context.fetch(request)
        for object in objects {
            stats.faults.add()
            _ = object.value(forKey: "name")
        }
        if let first = objects.first, !first.isDeleted {
            first.setValue(random.index(50), forKey: "score")
        }
    }
}
