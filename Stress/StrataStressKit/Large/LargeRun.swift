import Foundation
import Strata
import StrataLocks
import StrataTestSupport

/// The large-data stress mode (`make stress-large`): a store of a million records built with
/// raw SQLite, then readers (pages, faults, batched walks), writers (roots, and a child pushing
/// up through its parent) and a teller working on it at once for a bounded time. Prints
/// throughput and latency per operation and peak memory; checks every row read (order,
/// contents, never stale after a merge), the saved edits against the store, the bank's ledger,
/// and that every kind of work was done. Call ``run(log:)`` from any thread.
public final class LargeRun: Sendable {
    /// What to run.
    public struct Configuration: Sendable {
        /// The seed of every random choice.
        public var seed: UInt64
        /// How long the workload runs, in seconds (the store is built before).
        public var seconds: Double
        /// Records in the store.
        public var rows = 1_000_000
        /// Accounts of the bank part.
        public var accounts = 1_000
        /// Keys most edits and many reads go to (collisions, and rows read right after a merge).
        public var hotKeys = 2_000
        /// Rows per `fetchLimit` page.
        public var pageSize = 100
        /// Keys per range of faults.
        public var faultSpan = 1_000
        /// Keys per batched walk.
        public var walkSpan = 50_000
        /// `fetchBatchSize` of the walks.
        public var batchSize = 500
        /// Whether the first walk covers the whole table.
        public var fullWalk = true
        /// Records a root writer edits per save.
        public var editsPerSave = 40
        /// Records the child edits per push.
        public var editsPerPush = 20
        /// How long after the deadline the workers may take before the run counts as hung.
        public var watchdogGrace: TimeInterval = 60
        /// The readers' `stalenessInterval` (nil: the library's default, cached rows never
        /// expire — what the design promises to keep fresh through merges; 0 reads every row
        /// from the store, to tell a stale cache from a stale merge).
        public var readerStaleness: TimeInterval?
        /// The ledger's negative control (see ``LedgerControl``).
        public var negativeControl = false

        /// A configuration with the defaults (a million rows).
        public init(seed: UInt64, seconds: Double) {
            self.seed = seed
            self.seconds = seconds
        }
    }

    /// What this run does.
    public let configuration: Configuration

    /// Prepares a run.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Builds the store, runs the workload and the checks; returns the report.
    public func run(log: @escaping @Sendable (String) -> Void) -> StressReport {
        var report = StressReport(seed: configuration.seed)
        let directory = TemporaryDirectory(prefix: "strata-stress-large")
        let storeURL = directory.file("Large.sqlite")
        let built: LargeStore.Built
        do {
            built = try LargeStore.build(at: storeURL, rows: configuration.rows, accounts: configuration.accounts)
        } catch {
            report.check("store built", problems: ["\(error)"])
            return report
        }
        log(
            String(
                format: "  store: %d records + %d accounts built with raw SQLite in %.1f s (%@ on disk)", built.rows, built.accounts, built.seconds,
                MemoryProbe.mebibytes(built.bytes)))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: LargeModel.make())
        do {
            try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
        } catch {
            report.check("store opened", problems: ["\(error)"])
            return report
        }
        let baseline = MemoryProbe.resident
        let counters = StressCounters()
        let control = LedgerControl(enabled: configuration.negativeControl)
        let workload = LargeWorkload(configuration: configuration, coordinator: coordinator, counters: counters, control: control)
        let tallies = StrataLock<[Int: WorkerTally]>([:])
        let seeds = SeededGenerator(seed: configuration.seed)
        let start = DispatchTime.now()
        let deadline = start + configuration.seconds
        let progress = LargeProgress(counters: counters, seconds: configuration.seconds, log: log)
        let workers = ThreadRunner.run(count: LargeWorkload.roles.count, timeout: configuration.seconds + configuration.watchdogGrace) { worker in
            let tally = workload.runWorker(worker, seed: seeds.derivedSeed(UInt64(worker)), until: deadline)
            tallies.withLock { $0[worker] = tally }
        }
        progress.stop()
        report.elapsed = LargeWorkload.seconds(since: start)
        let peak = MemoryProbe.peakResident
        let byWorker = tallies.withLock { $0 }
        var total = WorkerTally()
        for tally in byWorker.values { total.merge(tally) }
        report.operations = total.stats.values.reduce(0) { $0 + $1.count }
        report.check(
            "no deadlock: every worker finished within \(Int(configuration.watchdogGrace)) s of the deadline",
            problems: workers.finished ? [] : ["\(LargeWorkload.roles.count - byWorker.count) workers still running"], figures: "\(LargeWorkload.roles.count) workers")
        for invariant in LargeInvariant.allCases {
            let count = total.violations[invariant, default: 0]
            let problems = count == 0 ? [] : ["\(count) violations"] + total.problems.filter { $0.hasPrefix(invariant.rawValue) }
            report.check(invariant.rawValue + figuresNote(invariant, total), problems: problems, figures: figures(invariant, total))
        }
        report.check("saved edits all in the store (sum of versions = edits saved, no lost or doubled update)", problems: versionProblems(storeURL, total))
        let reader = workload.rootContext("checker")
        let ledger = BankInvariants.ledger(in: reader, initialAccounts: configuration.accounts)
        report.check(
            "bank ledger: total money constant, no account negative, no lost update", problems: ledger.problems,
            figures: "\(ledger.accounts) accounts, \(ledger.transfers) transfers, total \(ledger.total)")
        let sqlite = BankInvariants.sqlite(storeURL: storeURL, initialAccounts: configuration.accounts)
        report.check("SQLite PRAGMA integrity_check", problems: sqlite.integrity, figures: "ok")
        report.check("SQL oracle (the ledger recomputed by SQLite alone)", problems: sqlite.oracle)
        let liveness = livenessRequirements(total, byWorker: byWorker)
        report.check("liveness: every kind of work was done", problems: liveness.problems, figures: liveness.figures)
        report.check("no unexpected errors", problems: counters.failures)
        report.figures = operationLines(total, elapsed: report.elapsed)
        report.figures.append(
            "memory: resident \(MemoryProbe.mebibytes(baseline)) after opening the store, peak (VmHWM) \(MemoryProbe.mebibytes(peak))"
                + (baseline.flatMap { base in peak.map { " = +\(MemoryProbe.mebibytes($0 - base)) over it" } } ?? ""))
        report.figures.append(
            "saves merged into readers: \(total.counts.filter { $0.key.hasPrefix("saves merged") }.map { "\($0.key.dropFirst(16)) \($0.value)" }.sorted().joined(separator: ", ")); dropped from full inboxes: \(workload.fanout.droppedSaves)"
        )
        report.figures.append(
            "conflicts retried: \(total.counts["conflicts retried", default: 0]) (given up: edits \(total.counts["edits given up", default: 0]), transfers \(total.counts["transfers given up", default: 0])); pushes rolled back with their parent: \(total.counts["pushes rolled back with their parent", default: 0])"
        )
        if configuration.negativeControl {
            report.figures.append("NEGATIVE CONTROL: \(control.brokenTransfers.current) transfers credited without debiting — the money checks must FAIL")
        }
        return report
    }

    private func figuresNote(_ invariant: LargeInvariant, _ total: WorkerTally) -> String {
        switch invariant {
        case .order: return " (page k holds keys k·size…, ranges and walks their keys, in order)"
        case .content: return " (name and score are the key's)"
        case .stale: return " (a row read after a merge shows at least the merged version)"
        case .batches: return " (a walk loads each batch once and keeps at most 2)"
        }
    }

    private func figures(_ invariant: LargeInvariant, _ total: WorkerTally) -> String {
        switch invariant {
        case .stale: return "\(total.counts["rows checked against a merged version", default: 0]) rows read after a merge of their key"
        case .batches: return "\(total.counts["walks", default: 0]) walks finished"
        default:
            return "\(total.counts["rows checked", default: 0]) rows checked"
        }
    }

    private func versionProblems(_ url: URL, _ total: WorkerTally) -> [String] {
        do {
            let totals = try LargeStore.versionTotals(at: url)
            var problems: [String] = []
            if totals.rows != configuration.rows { problems.append("\(totals.rows) records in the store, \(configuration.rows) built") }
            let saved = Int64(total.counts["record edits saved", default: 0])
            if totals.versions != saved { problems.append("the versions add up to \(totals.versions), \(saved) edits were saved") }
            return problems
        } catch {
            return ["reading the store failed: \(error)"]
        }
    }

    /// Each kind of work must have been done: pages, faults, walk batches, merges into every
    /// reader, rows checked after a merge, root saves, pushes, transfers.
    private func livenessRequirements(_ total: WorkerTally, byWorker: [Int: WorkerTally]) -> Liveness {
        var liveness = Liveness()
        func operations(_ prefix: String) -> Int { total.stats.filter { $0.key.hasPrefix(prefix) }.values.reduce(0) { $0 + $1.count } }
        liveness.require("pages", operations("page"))
        liveness.require("fault ranges fired", operations("fire"))
        liveness.require("walk batches", operations("walk: batch"))
        for (worker, role) in LargeWorkload.roles.enumerated() where LargeWorkload.readerIndex(worker) != nil {
            liveness.require("saves merged by \(role.rawValue)\(worker)", byWorker[worker]?.counts["saves merged by \(role.rawValue)\(worker)"] ?? 0)
        }
        liveness.require("rows read after a merge of their key", total.counts["rows checked against a merged version", default: 0])
        liveness.require("root writer saves", operations("writer"))
        liveness.require("child → parent pushes", total.counts["pushes saved", default: 0])
        liveness.require("transfers", total.counts["transfers saved", default: 0])
        return liveness
    }

    private func operationLines(_ total: WorkerTally, elapsed: Double) -> [String] {
        ["per operation (over \(String(format: "%.1f", elapsed)) s; rows/s counts the rows each operation read or wrote):"]
            + total.stats.keys.sorted().compactMap { name in total.stats[name].map { "  " + $0.line(name, elapsed: elapsed) } }
    }
}
