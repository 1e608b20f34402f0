import Foundation
import Strata
import StrataLocks
import StrataProgress
import StrataSQLite
import StrataTestSupport
import Synchronization

/// Checks the invariants after root saves, on a thread of its own with a reader context of
/// its own: every root save signals it; it checks the money after the latest ones (saves that
/// land while it checks are covered by the next check) and the full ledger at most every
/// `fullCheckInterval` seconds. Also logs progress. Thread-safe.
final class SaveChecker: Sendable {
    let workload: BankWorkload
    let reader: ManagedObjectContext
    let configuration: StressRun.Configuration
    let log: @Sendable (String) -> Void
    private let signal = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let found = StrataLock<[String]>([])

    init(workload: BankWorkload, reader: ManagedObjectContext, configuration: StressRun.Configuration, log: @escaping @Sendable (String) -> Void) {
        self.workload = workload
        self.reader = reader
        self.configuration = configuration
        self.log = log
    }

    /// The problems the checks found (the first 20).
    var problems: [String] { found.withLock { $0 } }

    /// Observes the did-save notifications of the tree's root contexts: counts them, keeps their
    /// IDs for manual merges and wakes the checker. Returns the observer token.
    func observeRootSaves(of tree: ContextTree) -> any NSObjectProtocol {
        let roots = Set(tree.nodes.filter { $0.spec.parent == nil }.map { ObjectIdentifier($0.context) })
        return NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: nil, queue: nil) { [self] notification in
            guard let context = notification.object as? ManagedObjectContext, roots.contains(ObjectIdentifier(context)) else { return }
            let info = notification.userInfo ?? [:]
            func ids(_ key: String) -> Set<ManagedObjectID> { info[key] as? Set<ManagedObjectID> ?? [] }
            workload.noteRootSave(
                ContextChanges(
                    name: notification.name, inserted: ids(ManagedObjectContext.NotificationKey.insertedObjectIDs),
                    updated: ids(ManagedObjectContext.NotificationKey.updatedObjectIDs), deleted: ids(ManagedObjectContext.NotificationKey.deletedObjectIDs)))
            workload.counters.rootSaves.add()
            signal.signal()
        }
    }

    /// Starts the checking thread.
    func start(startedAt start: DispatchTime) {
        let thread = Thread { [self] in
            loop(start: start)
            finished.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Stops the checking thread and waits for it (bounded).
    func stop() {
        stopped.store(true, ordering: .relaxed)
        signal.signal()
        _ = finished.wait(timeout: .now() + 60)
    }

    private func loop(start: DispatchTime) {
        let counters = workload.counters
        var lastFull = DispatchTime.now()
        // Plain lines every progressInterval off a terminal (CI logs); a status line on one.
        let meter = ProgressMeter(lineInterval: configuration.progressInterval > 0 ? configuration.progressInterval : nil, printLine: log)
        defer { meter.finish() }
        while !stopped.load(ordering: .relaxed) {
            guard signal.wait(timeout: .now() + 0.25) == .success else { continue }
            while signal.wait(timeout: .now()) == .success {}  // coalesce the saves that piled up
            if stopped.load(ordering: .relaxed) { break }
            record(BankInvariants.money(in: reader, initialAccounts: workload.initialAccounts))
            counters.checks.add()
            let now = DispatchTime.now()
            if seconds(from: lastFull, to: now) >= configuration.fullCheckInterval {
                let ledger = BankInvariants.ledger(in: reader, initialAccounts: workload.initialAccounts)
                record(ledger.problems)
                counters.fullChecks.add()
                lastFull = DispatchTime.now()
            }
            let elapsed = seconds(from: start, to: now)
            meter.update(
                ProgressStatus(
                    label: "  stress", done: counters.operations.current, unit: "ops", checks: counters.checks.current,
                    detail:
                        "\(counters.transfers.current) transfers, \(counters.rootSaves.current) root saves, "
                        + "\(counters.conflicts.current + counters.constraintConflicts.current) conflicts retried, \(counters.fullChecks.current) full ledger checks",
                    elapsed: elapsed, secondsLeft: configuration.seconds - elapsed))
        }
    }

    private func record(_ problems: [String]) {
        guard !problems.isEmpty else { return }
        found.withLock { found in
            for problem in problems where found.count < 20 { found.append(problem) }
        }
    }

    private func seconds(from start: DispatchTime, to end: DispatchTime) -> Double {
        Double(end.uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9
    }
}
