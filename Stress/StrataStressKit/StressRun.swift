import Foundation
import Strata
import StrataTestSupport
import Synchronization

/// One seeded, time-bounded run of the bank workload on a fresh SQLite store: worker threads,
/// a checker that verifies the invariants after root saves, then the final checks.
///
/// Call ``run(log:)`` from a thread that is not the main thread; the main thread must service
/// the main queue meanwhile (`RunLoop.main`, `dispatchMain()`, or the test runner), since one
/// of the contexts is a main-queue context.
public final class StressRun: Sendable {
    /// What to run.
    public struct Configuration: Sendable {
        /// The seed of every random choice.
        public var seed: UInt64
        /// How long the workload runs, in seconds.
        public var seconds: Double
        /// Worker threads.
        public var threads = 8
        /// Accounts the bank opens with.
        public var initialAccounts = 64
        /// Accounts most transfers use (collisions).
        public var hotAccounts = 8
        /// The shortest time between two full ledger checks during the run.
        public var fullCheckInterval: TimeInterval = 3
        /// How often a progress line is logged (0: never).
        public var progressInterval: TimeInterval = 10
        /// The contexts the workers use, by index in ``BankTopology/layout`` (nil: all 16), to
        /// narrow a failure down.
        public var contexts: [Int]?
        /// How long after the deadline the workers may take before the run counts as hung.
        public var watchdogGrace: TimeInterval = 60
        /// When set, a recording of ``StrataTrace`` is switched on and off in alternate windows
        /// of this many seconds and the report compares the workload's rate in the two
        /// (`StrataStress --trace-overhead`; docs/concurrency.md, "Cost").
        public var traceOverheadWindow: TimeInterval?
        /// The ledger's negative control: break one transfer in ten (credit without debit), so
        /// the money checks must fail. Never on in a normal run.
        public var negativeControl = false

        /// A configuration with the defaults.
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

    /// Runs the workload and the checks; returns the report. `log` receives progress lines.
    public func run(log: @escaping @Sendable (String) -> Void) -> StressReport {
        var report = StressReport(seed: configuration.seed)
        let directory = TemporaryDirectory(prefix: "strata-stress")
        let storeURL = directory.file("Bank.sqlite")
        let counters = StressCounters()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: BankModel.make())
        do {
            // History on: every root save and batch request is recorded (checked at the end).
            try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: [PersistentStoreOption.persistentHistoryTracking: true])
            let setup = ManagedObjectContext(concurrencyType: .privateQueue)
            setup.persistentStoreCoordinator = coordinator
            try BankModel.seed(setup, accounts: configuration.initialAccounts)
        } catch {
            report.check("store set up", problems: ["\(error)"])
            return report
        }
        let tree = BankTopology.makeTree(coordinator: coordinator)
        let workload = BankWorkload(
            tree: tree, roles: BankTopology.roles, counters: counters, initialAccounts: configuration.initialAccounts,
            hotAccounts: configuration.hotAccounts, active: configuration.contexts, control: LedgerControl(enabled: configuration.negativeControl))
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        reader.name = "checker"
        let checker = SaveChecker(workload: workload, reader: reader, configuration: configuration, log: log)
        let observer = checker.observeRootSaves(of: tree)
        defer { NotificationCenter.default.removeObserver(observer) }

        // The workload.
        let start = DispatchTime.now()
        let deadline = start + configuration.seconds
        checker.start(startedAt: start)
        var sampler: TraceOverheadSampler?
        if let window = configuration.traceOverheadWindow {
            sampler = TraceOverheadSampler(interval: window, file: directory.file("overhead-trace.json")) { counters.operations.current }
            sampler?.start(until: deadline)
        }
        let seeds = SeededGenerator(seed: configuration.seed)
        let workers = ThreadRunner.run(count: configuration.threads, timeout: configuration.seconds + configuration.watchdogGrace) { worker in
            workload.runWorker(worker, seed: seeds.derivedSeed(UInt64(worker)), until: deadline)
        }
        report.elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        report.operations = counters.operations.current
        if let sampler { report.figures.append(TraceOverheadSummary(sampler.finish()).figure) }
        guard workers.finished else {
            checker.stop()
            report.check(
                "no deadlock: every worker finished within \(Int(configuration.watchdogGrace)) s of the deadline",
                problems: [
                    "workers still blocked (a deadlock or a hang):\n\(workload.activityReport)"
                ])
            report.failures = counters.failures
            return report
        }
        let drained = waitForAsynchronousBlocks(workload)
        checker.stop()

        // Final flush: whatever children saved into parents goes up and out, children first.
        for node in tree.nodes.reversed() {
            node.context.performAndWait {
                guard node.context.hasChanges else { return }
                do {
                    try node.context.save()
                } catch {
                    counters.absorb(error, during: "final flush of \(node.spec.name)")
                    workload.recover(node.context, index: node.index, after: error)
                }
            }
        }
        tree.drain()  // automatic merges of the last saves have run

        report.check(
            "no deadlock: every worker finished, asynchronous blocks drained", problems: drained ? [] : ["asynchronous blocks still pending after 30 s"], figures: "\(configuration.threads) workers")
        report.check(
            "checks after root saves: total money constant, no account negative", problems: checker.problems,
            figures: "\(counters.checks.current) checks over \(counters.rootSaves.current) root saves (coalesced when saves outpace checks), \(counters.fullChecks.current) full ledger checks")
        report.check("no account ever seen negative in any context", problems: counters.negativeSightings.current == 0 ? [] : ["\(counters.negativeSightings.current) sightings"])
        report.check(
            "pinned query generations always add up", problems: counters.pinnedAuditFailures.current == 0 ? [] : ["\(counters.pinnedAuditFailures.current) audits with a wrong total"],
            figures: "\(counters.pinnedAudits.current) audits")
        let ledger = BankInvariants.ledger(in: reader, initialAccounts: configuration.initialAccounts)
        report.check(
            "final ledger: total money constant, no account negative, no lost update (counters and balances match the transfer log)",
            problems: ledger.problems, figures: "\(ledger.accounts) open accounts, \(ledger.closedAccounts) closed, \(ledger.transfers) transfers, total \(ledger.total)")
        let history = HistoryAudit.check(reader: reader)
        report.check("persistent history complete and in order (replaying it gives the store's accounts and transfers)", problems: history.problems, figures: history.figures)
        report.check("all 16 contexts agree after the final merge/refresh", problems: agreement(tree, reader: reader), figures: "16/16")
        report.check(
            "re-entrant chains (child → parent → child): the child's block re-entered on its parent's thread, the fetch inside exact",
            problems: workload.chainViolations.current == 0 ? [] : ["\(workload.chainViolations.current) chains broke re-entrancy (see the problems recorded)"],
            figures:
                "\(workload.chainsCompleted.current) chains, \(workload.mainQueueChains.current) through the main-queue context (\(workload.mainQueueChainsOnMainThread.current) run on the main thread)"
        )
        let liveness = livenessRequirements(workload, counters: counters)
        report.check("liveness: the run did enough work to prove something", problems: liveness.problems, figures: liveness.figures)
        if configuration.negativeControl {
            report.figures.append("NEGATIVE CONTROL: \(workload.control.brokenTransfers.current) transfers credited without debiting — the money checks above must FAIL")
        }
        let sqlite = BankInvariants.sqlite(storeURL: storeURL, initialAccounts: configuration.initialAccounts)
        report.check("SQLite PRAGMA integrity_check", problems: sqlite.integrity, figures: "ok")
        report.check("SQL oracle (the ledger recomputed by SQLite alone)", problems: sqlite.oracle)
        report.check("no unexpected errors", problems: counters.failures, figures: "")
        report.failures = []
        report.figures = figures(counters, ledger: ledger, elapsed: report.elapsed) + report.figures
        return report
    }

    /// The minimum work of a run: transfers, root saves and checks, and for each role some
    /// context of which is active, operations (and transfers, for the roles that move money),
    /// plus the role's own kind of work (audits, re-entrant chains, accounts opened).
    private func livenessRequirements(_ workload: BankWorkload, counters: StressCounters) -> Liveness {
        var liveness = Liveness()
        liveness.require("transfers saved", counters.transfers.current)
        liveness.require("root saves", counters.rootSaves.current)
        liveness.require("checks after root saves", counters.checks.current)
        let activeRoles = Set(workload.active.map { workload.roles[$0] })
        for role in BankRole.allCases where activeRoles.contains(role) {
            liveness.require("\(role.rawValue) operations", workload.operationsByRole[role]?.current ?? 0)
            if [.teller, .view, .resetter, .importer].contains(role) {
                liveness.require("\(role.rawValue) transfers", workload.transfersByRole[role]?.current ?? 0)
            }
        }
        if activeRoles.contains(.auditor) { liveness.require("pinned audits", counters.pinnedAudits.current) }
        if activeRoles.contains(.importer) { liveness.require("accounts opened", counters.opened.current) }
        if activeRoles.contains(.importer) || activeRoles.contains(.labeler) { liveness.require("batch requests", counters.batchRequests.current) }
        if activeRoles.contains(.inspector) { liveness.require("re-entrant chains through the main-queue context", workload.mainQueueChains.current) }
        let chaining = workload.active.contains { workload.tree.parent(of: $0) != nil && [.teller, .inspector].contains(workload.roles[$0]) }
        if chaining { liveness.require("re-entrant chains", workload.chainsCompleted.current) }
        return liveness
    }

    /// Waits (bounded) until no asynchronous block of the workload is pending.
    private func waitForAsynchronousBlocks(_ workload: BankWorkload) -> Bool {
        let limit = DispatchTime.now() + 30
        while workload.pendingAsync.current > 0 {
            if DispatchTime.now() > limit { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Brings every context up to date and compares its accounts with the reader's. Contexts
    /// that merge automatically are compared as they are (their merges must have done it);
    /// the others are refreshed first (the pinned one unpinned).
    private func agreement(_ tree: ContextTree, reader: ManagedObjectContext) -> [String] {
        let reference: [Int64: BankInvariants.AccountState]
        do {
            reference = try BankInvariants.accounts(in: reader)
            reader.performAndWait { reader.reset() }
        } catch {
            return ["the reader failed: \(error)"]
        }
        var problems: [String] = []
        for node in tree.nodes {
            let context = node.context
            context.performAndWait {
                if context.hasChanges { problems.append("\(node.spec.name) still has unsaved changes") }
                if !node.spec.automaticallyMerges {
                    try? context.setQueryGenerationFrom(nil)
                    context.refreshAllObjects()
                }
            }
            do {
                let view = try BankInvariants.accounts(in: context)
                problems += BankInvariants.differences(view, from: reference).map { "\(node.spec.name): \($0)" }
            } catch {
                problems.append("\(node.spec.name): \(error)")
            }
        }
        return problems
    }

    private func figures(_ counters: StressCounters, ledger: BankInvariants.LedgerSummary, elapsed: Double) -> [String] {
        [
            "transfers saved: \(counters.transfers.current) (\(ledger.transfers) reached the store; the rest were rolled back with a parent that conflicted)",
            "conflicts retried: \(counters.conflicts.current + counters.constraintConflicts.current) (optimistic locking 133020: \(counters.conflicts.current), uniqueness 133021: \(counters.constraintConflicts.current)); given up after \(BankWorkload.maximumAttempts) attempts: \(counters.givenUp.current)",
            "parents rolled back after a conflict: \(counters.parentRollbacks.current)",
            "root saves: \(counters.rootSaves.current) (\(String(format: "%.0f", Double(counters.rootSaves.current) / max(elapsed, 0.001)))/s); accounts opened \(counters.opened.current), closed \(counters.closed.current)",
            "batch requests: \(counters.batchRequests.current) (\(counters.batchRows.current) rows inserted, deleted or updated)",
            "merges: \(counters.merges.current); resets and refreshes: \(counters.resets.current); pinned audits: \(counters.pinnedAudits.current)",
        ]
    }
}
