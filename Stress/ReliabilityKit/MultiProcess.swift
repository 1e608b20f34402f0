import Foundation
import Strata
import StrataProgress

/// Several processes doing read-modify-write saves on one store file: increments acknowledged
/// by the workers must all be in the store (no lost update, none counted twice), and
/// `SQLITE_BUSY` may only surface as a timeout error (134090) after the configured timeout.
public struct MultiProcess {
    /// What to run.
    public struct Configuration: Sendable {
        /// The `StrataReliability` executable.
        public var executable: String
        /// A folder for the store.
        public var directory: URL
        /// Workers at once.
        public var processes = 4
        /// Seconds each contention phase lasts.
        public var seconds: Double = 5
        /// Counters the workers share.
        public var counters = 6
        /// The run's seed.
        public var seed: UInt64
        /// Journal modes (one store each).
        public var journals: [JournalMode] = [.wal, .delete]

        /// Creates a configuration.
        public init(executable: String, directory: URL, seed: UInt64) {
            self.executable = executable
            self.directory = directory
            self.seed = seed
        }
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates the test.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    private struct Totals {
        var increments = 0
        var lostUpdates = 0
        var doubleCounted = 0
        var conflicts = 0
        var timeouts = 0
        var earlyTimeouts = 0
        var busyNotTimeout = 0
        var otherErrors = 0
        var workerFailures = 0
        var forcedTimeoutsMissing = 0
        /// Workers of the first phase (no short timeout) that acknowledged nothing.
        var idleWorkers = 0  // phases with the 5 s timeout in which no worker acknowledged an increment
    }

    /// Runs every phase and returns the report.
    public func run() -> PartReport {
        let started = Date()
        var totals = Totals()
        var details = DetailLog()
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        // A status line on a terminal only (the phases take seconds each); off one the part
        // prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        for (index, journal) in configuration.journals.enumerated() {
            let url = configuration.directory.appendingPathComponent("counters-\(journal).sqlite")
            removeStore(url)
            do {
                try createCounters(at: url, journal: journal)
            } catch {
                totals.workerFailures += 1
                details.add("cannot create the counter store: \(error)")
                continue
            }
            var acknowledged = Array(repeating: 0, count: configuration.counters)
            // Phase 1: contention with the default timeout (5 s): no timeout expected.
            // Phase 2: contention with a 20 ms timeout: timeouts allowed, never early.
            // Phase 3: a process holds the write lock for 1.5 s while a worker with a 0.3 s
            //          timeout saves: timeouts required, never early.
            let phases: [(name: String, workers: Int, timeout: Double, seconds: Double, holdLock: Double?)] = [
                ("contention, timeout 5 s", configuration.processes, 5, configuration.seconds, nil),
                ("contention, timeout 0.02 s", configuration.processes, 0.02, configuration.seconds / 2, nil),
                ("lock held 1.5 s, timeout 0.3 s", 1, 0.3, 1.2, 1.5),
            ]
            for (phaseIndex, phase) in phases.enumerated() {
                let label = "\(journal) \(phase.name)"
                meter.update(
                    ProgressStatus(
                        label: "processes", done: index * phases.count + phaseIndex, total: configuration.journals.count * phases.count, unit: "phases",
                        detail: "\(totals.increments) increments acknowledged; now: \(label)", elapsed: Date().timeIntervalSince(started)))
                var holder: ChildProcess?
                if let hold = phase.holdLock {
                    holder = try? ChildProcess(
                        executable: configuration.executable, arguments: ["lock-holder", "--store", url.path, "--seconds", String(hold)],
                        stderrPath: configuration.directory.appendingPathComponent("holder.stderr").path)
                    var locked = false
                    for _ in 0..<500 where !locked {
                        _ = holder?.sleep(0.01)
                        locked = holder?.outputLines.contains("LOCKED") ?? false
                    }
                    if !locked {
                        totals.workerFailures += 1
                        details.add("\(label): the lock holder did not take the lock: \(holder?.errorOutput ?? "")")
                    }
                }
                var workers: [ChildProcess] = []
                for worker in 0..<phase.workers {
                    let seed = configuration.seed &+ UInt64(index * 100 + phaseIndex * 10 + worker)
                    let arguments = [
                        "counter-worker", "--store", url.path, "--journal", journal.rawValue, "--seconds", String(phase.seconds),
                        "--timeout", String(phase.timeout), "--counters", String(configuration.counters), "--seed", String(seed),
                    ]
                    do {
                        workers.append(
                            try ChildProcess(
                                executable: configuration.executable, arguments: arguments,
                                stderrPath: configuration.directory.appendingPathComponent("worker-\(worker).stderr").path))
                    } catch {
                        totals.workerFailures += 1
                        details.add("\(label): cannot start a worker: \(error)")
                    }
                }
                var phaseTimeouts = 0
                // Liveness is asked of the phase, not of each worker: SQLite's locks are not fair,
                // and under a rollback journal one worker of several can be starved for a whole
                // short phase on a loaded machine without anything being wrong.
                var phaseIncrements = 0
                for (number, worker) in workers.enumerated() {
                    let ended = worker.wait(timeout: phase.seconds + 60)
                    guard ended == .exited(0), let line = worker.outputLines.last(where: { $0.hasPrefix("RESULT ") }), let tally = CounterWorker.Tally(line: line) else {
                        totals.workerFailures += 1
                        details.add("\(label): worker \(number) ended \(ended.map(String.init(describing:)) ?? "by the watchdog"): \(worker.errorOutput.suffix(300))")
                        continue
                    }
                    for (counter, count) in tally.increments.enumerated() where counter < acknowledged.count { acknowledged[counter] += count }
                    totals.increments += tally.increments.reduce(0, +)
                    phaseIncrements += tally.increments.reduce(0, +)
                    totals.conflicts += tally.conflicts
                    totals.timeouts += tally.timeouts
                    phaseTimeouts += tally.timeouts
                    totals.earlyTimeouts += tally.earlyTimeouts
                    totals.busyNotTimeout += tally.busyNotTimeout
                    totals.otherErrors += tally.otherErrors
                    if tally.earlyTimeouts + tally.busyNotTimeout + tally.otherErrors > 0 {
                        details.add("\(label): worker \(number): \(line) — \(worker.errorOutput.suffix(300))")
                    }
                }
                if phaseIndex == 0 && !workers.isEmpty && phaseIncrements == 0 {
                    totals.idleWorkers += 1
                    details.add("\(label): no worker acknowledged an increment in \(phase.seconds) s")
                }
                if let holder, holder.wait(timeout: 30) != .exited(0) {
                    totals.workerFailures += 1
                    details.add("\(label): the lock holder failed: \(holder.errorOutput)")
                }
                if phase.holdLock != nil && phaseTimeouts == 0 {
                    totals.forcedTimeoutsMissing += 1
                    details.add("\(label): a save waited for a lock held longer than its timeout and did not time out")
                }
            }
            // Every acknowledged increment, and nothing else, must be in the store.
            do {
                let contents = try StoreContents.read(url)
                for counter in 0..<configuration.counters {
                    let stored = Int(contents.counters["c\(counter)"] ?? 0)
                    if stored < acknowledged[counter] {
                        totals.lostUpdates += acknowledged[counter] - stored
                        details.add("\(journal): counter c\(counter) holds \(stored), \(acknowledged[counter]) increments acknowledged")
                    } else if stored > acknowledged[counter] {
                        totals.doubleCounted += stored - acknowledged[counter]
                        details.add("\(journal): counter c\(counter) holds \(stored), only \(acknowledged[counter]) increments acknowledged")
                    }
                }
                if contents.integrity != "ok" {
                    totals.workerFailures += 1
                    details.add("\(journal): integrity_check: \(contents.integrity)")
                }
            } catch {
                totals.workerFailures += 1
                details.add("\(journal): cannot read the counters: \(error)")
            }
            removeStore(url)
        }
        return PartReport(
            name: "several processes (\(configuration.processes) read-modify-write workers)",
            figures: [
                Figure("increments acknowledged", totals.increments, atLeast: 1),
                Figure("optimistic-locking conflicts retried", totals.conflicts),
                Figure("timeouts (134090, after the timeout)", totals.timeouts),
                Figure("lost updates", totals.lostUpdates, mustBeZero: true),
                Figure("updates stored but reported failed", totals.doubleCounted, mustBeZero: true),
                Figure("timeouts before the configured timeout", totals.earlyTimeouts, mustBeZero: true),
                Figure("SQLITE_BUSY surfaced without 134090", totals.busyNotTimeout, mustBeZero: true),
                Figure("other errors", totals.otherErrors, mustBeZero: true),
                Figure("held lock not reported as a timeout", totals.forcedTimeoutsMissing, mustBeZero: true),
                Figure("worker failures (harness)", totals.workerFailures, mustBeZero: true),
                Figure("idle phases (no increment by any worker with the 5 s timeout)", totals.idleWorkers, mustBeZero: true),
            ],
            details: details.items, seconds: Date().timeIntervalSince(started))
    }

    private func createCounters(at url: URL, journal: JournalMode) throws {
        let stack = try BankStack(url: url, settings: StoreSettings(journal: journal))
        defer { stack.close() }
        let context = stack.newContext()
        try context.performAndWait {
            guard let entity = stack.model.entitiesByName["Counter"] else { throw HarnessError("no Counter entity") }
            for index in 0..<configuration.counters {
                let counter = ManagedObject(entity: entity, insertInto: context)
                counter.setValue("c\(index)", forKey: "name")
                counter.setValue(Int64(0), forKey: "value")
            }
            try context.save()
        }
    }
}
