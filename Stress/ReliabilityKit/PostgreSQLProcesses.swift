import Foundation
import Strata
import StrataPostgreSQL
import StrataPostgreSQLStore
import StrataProgress
import StrataTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Several processes on one PostgreSQL database (docs/reliability.md, "PostgreSQL processes"):
/// ``PostgreSQLBankChild`` processes, each with its own coordinator on a fresh namespace, move
/// money between accounts, and the parent checks after each phase that the stored balances
/// agree with the stored transfers, that money is conserved, that every acknowledged transfer
/// is stored once, and that a stored transfer no child acknowledged is one that was in flight.
///
/// 1. **Bank across processes**: the children run side by side and measure how long the others'
///    last changes take to reach a context of theirs that merges automatically (at most 2 s).
/// 2. **Client killed mid-save**: the parent SIGKILLs a random child at random moments and
///    starts another in its place.
/// 3. **Server restart mid-workload**: the parent restarts the server (`restart` of
///    scripts/postgres-test-server.sh) while the children transfer; they must see errors, not
///    hang (no child silent for ``Configuration/stallLimit``), and go on once it is back.
/// 4. **Exit while connecting**: ``PostgreSQLExitChild`` processes exit while two threads of
///    theirs open connections; each must exit with code 0 (no crash in a library's exit-time
///    cleanup, no hang).
///
/// The namespace is dropped at the end. Used on one thread.
public struct PostgreSQLProcesses {
    /// What to run.
    public struct Configuration: Sendable {
        /// The `StrataReliability` executable.
        public var executable: String
        /// The server (`postgresql://…`).
        public var url: String
        /// A folder for the children's standard error.
        public var directory: URL
        /// The run's seed.
        public var seed: UInt64
        /// Children at once (at least 2).
        public var processes = 3
        /// Accounts.
        public var accounts = 8
        /// Seconds of phase 1.
        public var bankSeconds: Double = 4
        /// Kills of phase 2 (0 leaves the phase out).
        public var kills = 15
        /// The longest pause between two kills.
        public var maximumKillDelay: Double = 0.6
        /// Server restarts of phase 3 (0 leaves the phase out).
        public var restarts = 1
        /// Processes of phase 4 that exit while connecting (0 leaves the phase out).
        public var exits = 20
        /// How long the server stays down on each restart.
        public var downSeconds: Double = 1
        /// The command restarting the server, without the down time: `[script, "restart"]` (or
        /// with words before the script, e.g. `env VAR=…`). Phase 3 runs only if the same words
        /// with `url` instead of `restart` print ``url``; otherwise (or with nil) it is left out,
        /// noted in the report.
        public var restartCommand: [String]?
        /// A child silent for longer than this while the server is up or down is stuck.
        public var stallLimit: Double = 10
        /// The latest time the kill phase may run to.
        public var deadline: Date?

        /// Creates a configuration.
        public init(executable: String, url: String, directory: URL, seed: UInt64) {
            self.executable = executable
            self.url = url
            self.directory = directory
            self.seed = seed
        }
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates the part.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// The part's name in reports.
    public static let name = "postgresql processes"

    /// The command restarting the test server: `scripts/postgres-test-server.sh restart`, found
    /// from `STRATA_POSTGRESQL_SERVER_SCRIPT`, the current folder, or the folders above the
    /// executable; nil if none exists.
    public static func serverRestartCommand(executable: String) -> [String]? {
        var candidates: [String] = []
        if let script = ProcessInfo.processInfo.environment["STRATA_POSTGRESQL_SERVER_SCRIPT"] { candidates.append(script) }
        candidates.append(FileManager.default.currentDirectoryPath + "/scripts/postgres-test-server.sh")
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("scripts/postgres-test-server.sh").path)
            directory = directory.deletingLastPathComponent()
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { [$0, "restart"] }
    }

    /// A transfer as a child announced it.
    private struct Transfer: Equatable {
        var source: Int64
        var target: Int64
        var amount: Int64
    }

    /// What the children said, over all phases.
    private struct Ledger {
        var tried = Set<Int64>()
        var acknowledged: [Int64: Transfer] = [:]

        mutating func read(_ lines: [String]) {
            for line in lines {
                let words = line.split(separator: " ")
                if words.first == "TRY", words.count == 2, let id = Int64(words[1]) {
                    tried.insert(id)
                } else if words.first == "ACK", words.count == 5, let id = Int64(words[1]), let source = Int64(words[2]), let target = Int64(words[3]),
                    let amount = Int64(words[4])
                {
                    acknowledged[id] = Transfer(source: source, target: target, amount: amount)
                }
            }
        }
    }

    private struct Totals {
        var acknowledged = 0
        var conflicts = 0
        var checks = 0
        var moneyNotConserved = 0
        var balancesDisagreeing = 0
        var acknowledgedLost = 0
        var appliedTwice = 0
        var storedNeverTried = 0
        var inFlightCommitted = 0
        var mergeLatency = 0
        var slowMerges = 0
        var kills = 0
        var acknowledgedAfterKill = 0
        var restarts = 0
        var errorsDuringRestarts = 0
        var longestStall = 0
        var longestOutage = 0
        var stuckChildren = 0
        var notResumed = 0
        var harnessFailures = 0
    }

    /// A running child and when its output last grew.
    private final class Running {
        let process: ChildProcess
        let id: Int
        var lastCount = 0
        var lastChange = Date()
        var longestSilence: Double = 0

        init(process: ChildProcess, id: Int) {
            self.process = process
            self.id = id
        }

        /// Drains the child's output and notes how long it was silent.
        func poll() {
            process.drain()
            let count = process.outputByteCount
            let now = Date()
            longestSilence = max(longestSilence, now.timeIntervalSince(lastChange))
            if count != lastCount {
                lastCount = count
                lastChange = now
            }
        }
    }

    /// Runs the phases and returns the report.
    public func run() -> PartReport {
        let started = Date()
        var totals = Totals()
        var details = DetailLog()
        var notes: [String] = []
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        let namespace = "strata_rel_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        defer { Self.drop(namespace: namespace, url: configuration.url) }
        do {
            try createAccounts(namespace: namespace)
        } catch {
            return PartReport(
                name: Self.name, figures: [Figure("cannot create the accounts", 1, mustBeZero: true)], details: ["\(error)"], seconds: Date().timeIntervalSince(started))
        }
        var ledger = Ledger()
        var random = SeededRandom(seed: configuration.seed)
        var nextID = 1
        let meter = ProgressMeter(lineInterval: 5)
        defer { meter.finish() }
        func status(_ phase: String) {
            meter.update(
                ProgressStatus(
                    label: "postgresql processes", done: ledger.acknowledged.count, unit: "transfers", checks: totals.checks,
                    detail: "\(phase); \(totals.kills) kills, \(totals.restarts) restarts", elapsed: Date().timeIntervalSince(started)))
        }
        func spawn(seconds: Double, peers: Int) -> Running? {
            let id = nextID
            nextID += 1
            let arguments = [
                "pg-bank-child", "--url", configuration.url, "--namespace", namespace, "--accounts", String(configuration.accounts), "--id", String(id),
                "--seed", String(configuration.seed), "--seconds", String(seconds), "--peers", String(peers),
            ]
            do {
                let process = try ChildProcess(
                    executable: configuration.executable, arguments: arguments, stderrPath: configuration.directory.appendingPathComponent("child-\(id).stderr").path)
                return Running(process: process, id: id)
            } catch {
                totals.harnessFailures += 1
                details.add("cannot start a child: \(error)")
                return nil
            }
        }
        /// Waits for children that end by themselves; a child silent too long is killed.
        func finish(_ children: [Running], phase: String, within seconds: Double) -> [PostgreSQLBankChild.Result] {
            var results: [PostgreSQLBankChild.Result] = []
            let giveUp = Date().addingTimeInterval(seconds)
            var waiting = children
            while !waiting.isEmpty {
                usleep(10_000)
                status(phase)
                waiting = waiting.filter { child in
                    child.poll()
                    if let ended = child.process.ended() {
                        ledger.read(child.process.outputLines)
                        if ended == .exited(0), let line = child.process.outputLines.last(where: { $0.hasPrefix("RESULT ") }),
                            let result = PostgreSQLBankChild.Result(line: line)
                        {
                            results.append(result)
                        } else {
                            totals.harnessFailures += 1
                            details.add("\(phase): child \(child.id) ended \(ended): \(child.process.errorOutput.suffix(300))")
                        }
                        return false
                    }
                    if Date().timeIntervalSince(child.lastChange) > configuration.stallLimit || Date() > giveUp {
                        totals.stuckChildren += 1
                        details.add("\(phase): child \(child.id) silent for \(String(format: "%.1f", Date().timeIntervalSince(child.lastChange))) s: killed")
                        child.process.killAndReap()
                        ledger.read(child.process.outputLines)
                        return false
                    }
                    return true
                }
            }
            for child in children { totals.longestStall = max(totals.longestStall, Int(child.longestSilence * 1_000)) }
            return results
        }
        func record(_ results: [PostgreSQLBankChild.Result]) {
            for result in results {
                totals.conflicts += result.conflicts
                totals.longestStall = max(totals.longestStall, result.longestAttempt)
            }
        }
        func check(_ phase: String) {
            totals.checks += 1
            do {
                try verify(namespace: namespace, ledger: ledger, phase: phase, totals: &totals, details: &details)
            } catch {
                totals.harnessFailures += 1
                details.add("\(phase): cannot read the accounts: \(error)")
            }
        }

        // Phase 1: the bank across processes, with the merge latency.
        let processes = max(2, configuration.processes)
        let bankChildren = (0..<processes).compactMap { _ in spawn(seconds: configuration.bankSeconds, peers: processes) }
        let bankResults = finish(bankChildren, phase: "bank", within: configuration.bankSeconds + 60)
        record(bankResults)
        for result in bankResults {
            totals.mergeLatency = max(totals.mergeLatency, result.mergeLatency)
            if result.mergeLatency < 0 || result.mergeLatency > 2_000 { totals.slowMerges += 1 }
        }
        if bankResults.count < processes { totals.slowMerges += processes - bankResults.count }
        check("bank")

        // Phase 2: children killed at random moments, replaced.
        if configuration.kills > 0 {
            let longRun = 3_600.0
            var children = (0..<processes).compactMap { _ in spawn(seconds: longRun, peers: 0) }
            var replacements = Set<Int>()
            let phaseEnd = configuration.deadline ?? .distantFuture
            while totals.kills < configuration.kills && Date() < phaseEnd && !children.isEmpty {
                let pause = 0.05 + Double(random.below(1_000)) / 1_000 * max(0, configuration.maximumKillDelay - 0.05)
                let wake = Date().addingTimeInterval(pause)
                while Date() < wake {
                    usleep(5_000)
                    for child in children { child.poll() }
                    status("kill \(totals.kills + 1)/\(configuration.kills)")
                }
                let victim = children.remove(at: random.below(children.count))
                let ended = victim.process.killAndReap()
                ledger.read(victim.process.outputLines)
                if ended != .signaled(SIGKILL) {
                    totals.harnessFailures += 1
                    details.add("kills: child \(victim.id) had ended by itself (\(ended)): \(victim.process.errorOutput.suffix(300))")
                }
                totals.kills += 1
                if replacements.contains(victim.id) {
                    totals.acknowledgedAfterKill += victim.process.outputLines.filter { $0.hasPrefix("ACK ") }.count
                }
                if let child = spawn(seconds: longRun, peers: 0) {
                    replacements.insert(child.id)
                    children.append(child)
                }
            }
            // Let the replacements work a moment, then end them the same way.
            _ = children.first?.process.sleep(0.5)
            for child in children {
                child.process.killAndReap()
                ledger.read(child.process.outputLines)
                if replacements.contains(child.id) { totals.acknowledgedAfterKill += child.process.outputLines.filter { $0.hasPrefix("ACK ") }.count }
            }
            check("kills")
        }

        // Phase 3: the server restarted while the children transfer.
        let restartCommand = configuration.restartCommand.flatMap { command in restarts(url: configuration.url, command: command) ? command : nil }
        if configuration.restarts > 0, let command = restartCommand {
            let firstRestart = 1.5
            let between = 3.0
            let seconds = firstRestart + Double(configuration.restarts) * (configuration.downSeconds + between) + 1
            let children = (0..<processes).compactMap { _ in spawn(seconds: seconds, peers: 0) }
            let phaseStart = Date()
            var acknowledgedAtRestart: [Int: Int] = [:]
            for restart in 0..<configuration.restarts {
                let at = phaseStart.addingTimeInterval(firstRestart + Double(restart) * (configuration.downSeconds + between))
                while Date() < at {
                    usleep(5_000)
                    for child in children { child.poll() }
                    status("server restart \(restart + 1)/\(configuration.restarts)")
                }
                do {
                    let restarter = try ChildProcess(
                        executable: command[0], arguments: Array(command.dropFirst()) + [String(configuration.downSeconds)],
                        stderrPath: configuration.directory.appendingPathComponent("restart.stderr").path)
                    var ended: ChildProcess.Termination?
                    let giveUp = Date().addingTimeInterval(60)
                    while ended == nil && Date() < giveUp {
                        for child in children { child.poll() }
                        ended = restarter.sleep(0.01) ? restarter.ended() : nil
                    }
                    if ended == nil { ended = restarter.wait(timeout: 0) }
                    if ended != .exited(0) {
                        totals.harnessFailures += 1
                        details.add("restart \(restart + 1): \(command.joined(separator: " ")) ended \(ended.map(String.init(describing:)) ?? "late"): \(restarter.errorOutput)")
                    }
                    totals.restarts += 1
                } catch {
                    totals.harnessFailures += 1
                    details.add("cannot run \(command.joined(separator: " ")): \(error)")
                }
                for child in children { acknowledgedAtRestart[child.id] = child.process.outputLines.filter { $0.hasPrefix("ACK ") }.count }
            }
            let results = finish(children, phase: "restart", within: seconds + 60)
            record(results)
            for result in results {
                totals.errorsDuringRestarts += result.errors
                totals.longestOutage = max(totals.longestOutage, result.longestOutage)
            }
            for child in children {
                let acknowledged = child.process.outputLines.filter { $0.hasPrefix("ACK ") }.count
                if acknowledged <= acknowledgedAtRestart[child.id] ?? 0 {
                    totals.notResumed += 1
                    details.add("restart: child \(child.id) acknowledged no transfer after the server came back")
                }
            }
            check("restart")
        } else if configuration.restarts > 0 {
            notes.append(
                configuration.restartCommand == nil
                    ? "server restart phase left out: scripts/postgres-test-server.sh not found (set STRATA_POSTGRESQL_SERVER_SCRIPT)"
                    : "server restart phase left out: the server the script would restart is not the one in the URL (started by hand, or another state file)")
        }
        // Phase 4: processes exiting while their threads open connections.
        var exitSeries: PostgreSQLExitChild.Series?
        if configuration.exits > 0 {
            status("exits")
            let series = PostgreSQLExitChild.series(
                executable: configuration.executable, url: configuration.url, count: configuration.exits, seed: configuration.seed,
                directory: configuration.directory.appendingPathComponent("exits"))
            for failure in series.failures { details.add(failure) }
            exitSeries = series
        }
        totals.acknowledged = ledger.acknowledged.count
        var figures = [
            Figure("transfers acknowledged", totals.acknowledged, atLeast: 1),
            Figure("optimistic-locking conflicts retried", totals.conflicts),
            Figure("longest merge of other processes' changes (ms)", totals.mergeLatency),
            Figure("children whose merge took over 2 s or never came", totals.slowMerges, mustBeZero: true),
            Figure("checks of the stored accounts", totals.checks),
            Figure("money not conserved", totals.moneyNotConserved, mustBeZero: true),
            Figure("balances disagreeing with the stored transfers", totals.balancesDisagreeing, mustBeZero: true),
            Figure("acknowledged transfers lost", totals.acknowledgedLost, mustBeZero: true),
            Figure("transfers applied twice", totals.appliedTwice, mustBeZero: true),
            Figure("transfers stored that no child tried", totals.storedNeverTried, mustBeZero: true),
            Figure("in-flight transfers found committed", totals.inFlightCommitted),
        ]
        if configuration.kills > 0 {
            figures += [
                Figure("kills", totals.kills, atLeast: 1),
                Figure("transfers acknowledged by replacement children", totals.acknowledgedAfterKill, atLeast: 1),
            ]
        }
        if configuration.restarts > 0 && restartCommand != nil {
            figures += [
                Figure("server restarts", totals.restarts, atLeast: 1),
                Figure("errors thrown while the server restarted", totals.errorsDuringRestarts, atLeast: 1),
                Figure("longest outage: failed transfer to next ack (ms)", totals.longestOutage),
                Figure("children that did not go on after a restart", totals.notResumed, mustBeZero: true),
            ]
        }
        if let exitSeries {
            figures += [
                Figure("processes that exited while connecting", exitSeries.cleanExits, atLeast: 1),
                Figure("processes that crashed or hung while exiting", exitSeries.failures.count, mustBeZero: true),
            ]
        }
        figures += [
            Figure("longest stall of a child (ms)", totals.longestStall),
            Figure("children stuck over \(Int(configuration.stallLimit)) s", totals.stuckChildren, mustBeZero: true),
            Figure("harness failures", totals.harnessFailures, mustBeZero: true),
        ]
        var report = PartReport(
            name: "\(Self.name) (\(processes) processes, \(configuration.accounts) accounts)", figures: figures, details: details.items,
            seconds: Date().timeIntervalSince(started))
        report.notes = notes
        return report
    }

    /// Whether `command` (`… restart`) restarts the server of `url`: its `url` subcommand must
    /// print the same URL, so a server started by hand is never restarted by mistake.
    private func restarts(url: String, command: [String]) -> Bool {
        guard command.last == "restart", let executable = command.first else { return false }
        let asking = try? ChildProcess(
            executable: executable, arguments: Array(command.dropFirst().dropLast()) + ["url"],
            stderrPath: configuration.directory.appendingPathComponent("url.stderr").path)
        guard let asking, asking.wait(timeout: 30) == .exited(0) else { return false }
        return asking.outputLines.last == url
    }

    /// Creates the store in `namespace` with the accounts.
    private func createAccounts(namespace: String) throws {
        let model = BankModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model, name: "postgresql processes")
        guard let url = URL(string: configuration.url) else { throw HarnessError("bad URL") }
        let store = try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: PostgreSQLBankChild.options(namespace: namespace))
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            guard let entity = model.entitiesByName["Account"] else { throw HarnessError("no Account entity") }
            for number in 0..<configuration.accounts {
                let account = ManagedObject(entity: entity, insertInto: context)
                account.setValue(Int64(number), forKey: "number")
                account.setValue(BankModel.initialBalance, forKey: "balance")
            }
            try context.save()
        }
    }

    /// Reads the accounts and transfers as stored and checks them against what the children said.
    private func verify(namespace: String, ledger: Ledger, phase: String, totals: inout Totals, details: inout DetailLog) throws {
        let model = BankModel.make()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model, name: "postgresql processes check")
        guard let url = URL(string: configuration.url) else { throw HarnessError("bad URL") }
        // Just after a restart the server may still refuse a moment.
        var store: PersistentStore?
        let giveUp = Date().addingTimeInterval(15)
        while store == nil {
            do {
                store = try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: PostgreSQLBankChild.options(namespace: namespace))
            } catch {
                if Date() > giveUp { throw error }
                usleep(100_000)
            }
        }
        defer { if let store { try? coordinator.remove(store) } }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        // One snapshot for both reads (a query generation is a REPEATABLE READ transaction on
        // PostgreSQL): a commit of a killed child landing between them must not look like a
        // transfer applied by halves.
        let (balances, stored) = try context.performAndWait { () -> ([Int64: Int64], [(Int64, Transfer)]) in
            try context.setQueryGenerationFrom(.current)
            defer { try? context.setQueryGenerationFrom(nil) }
            let accounts = try context.fetch(FetchRequest<ManagedObject>(entityName: "Account"))
            let transfers = try context.fetch(FetchRequest<ManagedObject>(entityName: "Transfer"))
            return (
                Dictionary(accounts.map { (BankWorkload.int64($0, "number"), BankWorkload.int64($0, "balance")) }, uniquingKeysWith: { first, _ in first }),
                transfers.map {
                    (
                        BankWorkload.int64($0, "saveNumber"),
                        Transfer(source: BankWorkload.int64($0, "source"), target: BankWorkload.int64($0, "target"), amount: BankWorkload.int64($0, "amount"))
                    )
                }
            )
        }
        let total = balances.values.reduce(0, +)
        if total != BankModel.initialBalance * Int64(configuration.accounts) || balances.count != configuration.accounts {
            totals.moneyNotConserved += 1
            details.add("\(phase): \(balances.count) accounts hold \(total), expected \(BankModel.initialBalance * Int64(configuration.accounts))")
        }
        var expected: [Int64: Int64] = [:]
        var seen: [Int64: Transfer] = [:]
        var twice = 0
        var neverTried = 0
        var inFlight = 0
        for (id, transfer) in stored {
            if seen[id] != nil {
                twice += 1
                details.add("\(phase): transfer \(id) stored twice")
                continue
            }
            seen[id] = transfer
            expected[transfer.source, default: BankModel.initialBalance] -= transfer.amount
            expected[transfer.target, default: BankModel.initialBalance] += transfer.amount
            if ledger.acknowledged[id] == nil {
                if ledger.tried.contains(id) {
                    inFlight += 1
                } else {
                    neverTried += 1
                    details.add("\(phase): transfer \(id) stored, never tried")
                }
            }
        }
        for (number, balance) in balances where balance != expected[number, default: BankModel.initialBalance] {
            totals.balancesDisagreeing += 1
            details.add("\(phase): account \(number) holds \(balance), its stored transfers make \(expected[number, default: BankModel.initialBalance])")
        }
        var lost = 0
        for (id, transfer) in ledger.acknowledged where seen[id] != transfer {
            lost += 1
            details.add("\(phase): acknowledged transfer \(id) \(seen[id] == nil ? "missing" : "stored differently")")
        }
        // Each check sees everything so far: count the new findings only.
        totals.appliedTwice = max(totals.appliedTwice, twice)
        totals.storedNeverTried = max(totals.storedNeverTried, neverTried)
        totals.inFlightCommitted = max(totals.inFlightCommitted, inFlight)
        totals.acknowledgedLost = max(totals.acknowledgedLost, lost)
    }

    /// Drops the part's namespace (giving up after 5 s on a lock).
    static func drop(namespace: String, url: String) {
        guard let connection = try? PostgreSQLConnection(url: url) else { return }
        _ = try? connection.execute("SET lock_timeout = '5s'")
        _ = try? connection.execute("DROP SCHEMA IF EXISTS \(namespace) CASCADE")
    }
}
