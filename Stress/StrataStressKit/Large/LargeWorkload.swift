import Foundation
import Strata
import StrataLocks

/// The large-data workload: fixed worker roles on one coordinator, each worker with its own
/// contexts. Readers page, fire faults and walk in batches, checking every row; writers edit
/// records (roots, and a child that pushes its saves upward through its parent) and move money.
/// Thread-safe: workers share only the fan-out of saves and the counters.
public final class LargeWorkload: Sendable {
    /// What each worker thread does.
    public enum Role: String, Sendable, CaseIterable {
        /// `fetchLimit`/`fetchOffset` pages sorted by key, objects with values.
        case pager
        /// Range fetches returning faults, each fired one by one.
        case faulter
        /// `fetchBatched` walks over key ranges, `fetchBatchSize` rows a batch.
        case walker
        /// A root context editing records (every edit adds one to `version`) and saving.
        case writer
        /// A child context editing records and moving money, `child.save()` then `parent.save()`.
        case pusher
        /// A root context moving money between accounts (the bank part).
        case teller
    }

    /// The workers' roles, by thread index.
    public static let roles: [Role] = [.pager, .faulter, .walker, .writer, .writer, .pusher, .teller]
    /// The readers' inbox numbers, by thread index (nil for writers).
    static func readerIndex(_ worker: Int) -> Int? { worker < 3 ? worker : nil }

    let configuration: LargeRun.Configuration
    let coordinator: PersistentStoreCoordinator
    let fanout = MergeFanout(readers: 3)
    let counters: StressCounters
    let control: LedgerControl

    /// Creates the workload on `coordinator` (its store already built).
    init(configuration: LargeRun.Configuration, coordinator: PersistentStoreCoordinator, counters: StressCounters, control: LedgerControl) {
        self.configuration = configuration
        self.coordinator = coordinator
        self.counters = counters
        self.control = control
    }

    /// A new root context on the coordinator.
    func rootContext(_ name: String) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.name = name
        return context
    }

    /// Runs worker `worker` until `deadline`; returns its tally. Call from a thread holding no context.
    func runWorker(_ worker: Int, seed: UInt64, until deadline: DispatchTime) -> WorkerTally {
        var random = SeededGenerator(seed: seed)
        var tally = WorkerTally()
        let role = Self.roles[worker]
        let name = "\(role.rawValue)\(worker)"
        switch role {
        case .pager, .faulter, .walker:
            var reader = ReaderState(context: rootContext(name), inbox: Self.readerIndex(worker) ?? 0)
            if let staleness = configuration.readerStaleness { reader.context.stalenessInterval = staleness }
            while DispatchTime.now() < deadline {
                switch role {
                case .pager: page(&reader, random: &random, tally: &tally)
                case .faulter: fireFaults(&reader, random: &random, tally: &tally)
                default: walk(&reader, random: &random, tally: &tally, until: deadline)
                }
                counters.operations.add()  // for the progress line only; the report counts the tallies
            }
        case .writer:
            let context = rootContext(name)
            while DispatchTime.now() < deadline {
                editRecords(in: context, random: &random, tally: &tally)
                counters.operations.add()
            }
        case .pusher:
            let parent = rootContext(name)
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = parent
            child.name = name + ".child"
            while DispatchTime.now() < deadline {
                push(child: child, parent: parent, random: &random, tally: &tally)
                counters.operations.add()
            }
        case .teller:
            let context = rootContext(name)
            while DispatchTime.now() < deadline {
                teller(in: context, random: &random, tally: &tally)
                counters.operations.add()
            }
        }
        return tally
    }

    /// `count` distinct keys, half of them (on average) among the hot ones, so that writers
    /// collide with each other and readers often read what was just merged.
    func pickKeys(_ count: Int, random: inout SeededGenerator) -> [Int64] {
        var keys = Set<Int64>()
        let rows = configuration.rows
        let hot = min(configuration.hotKeys, rows)
        while keys.count < min(count, rows) {
            keys.insert(Int64(random.chance(0.5) ? random.index(hot) : random.index(rows)))
        }
        return keys.sorted()
    }

    /// Seconds since `start`.
    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
