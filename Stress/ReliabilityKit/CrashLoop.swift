import Foundation
import StrataProgress
import StrataTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The SIGKILL crash loop: a child process saves through Strata and acknowledges each save;
/// the parent kills it at a random moment (a timer, or an exact I/O operation through the fault
/// VFS), reopens the store with Strata and checks it.
public struct CrashLoop {
    /// What to run.
    public struct Configuration: Sendable {
        /// The `StrataReliability` executable (it runs `bank-child`).
        public var executable: String
        /// A folder for the stores.
        public var directory: URL
        /// How many kills.
        public var kills: Int
        /// The run's seed.
        public var seed: UInt64
        /// Journal modes, taken in turn, one store each.
        public var journals: [JournalMode] = [.wal, .delete]
        /// A new store after this many kills.
        public var killsPerStore = 25
        /// Accounts per store.
        public var accounts = 48
        /// The latest a timer kill comes after the child starts (seconds).
        public var maximumDelay: TimeInterval = 0.35
        /// The share of kills made at an exact I/O operation (the rest by a timer).
        public var exactKillShare = 0.5
        /// Stop early after this moment (the figures say how many kills were done).
        public var deadline: Date?

        /// Creates a configuration.
        public init(executable: String, directory: URL, kills: Int, seed: UInt64) {
            self.executable = executable
            self.directory = directory
            self.kills = kills
            self.seed = seed
        }
    }

    /// The counts of a run.
    public struct Figures: Sendable {
        public var kills = 0
        public var exactKills = 0
        public var killsByJournal: [JournalMode: Int] = [:]
        public var hotJournals = 0
        public var corrupt = 0
        public var inconsistent = 0
        public var lostAcknowledged = 0
        public var committedNotAcknowledged = 0
        public var acknowledgedSaves = 0
        public var acknowledgedBatches = 0
        public var damagedBatches = 0
        public var historyStores = 0
        public var incompleteHistories = 0
        public var childFailures = 0
        public var stores = 0
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a loop.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    private struct StoreState {
        var url: URL
        var journal: JournalMode
        /// Whether the store records persistent history (every save and batch a transaction).
        var history: Bool
        var book: RecipeBook
        /// The highest save known durable: acknowledged, or seen in the store at a check.
        var confirmed: Int64 = 0
        /// The highest batch update known durable.
        var confirmedBatch: Int64 = 0
        var killsLeft: Int
    }

    /// Runs the loop and returns its report.
    public func run() -> PartReport {
        let started = Date()
        var figures = Figures()
        var details = DetailLog()
        var random = SeededRandom(seed: configuration.seed, stream: 0xC0A5)
        var current: StoreState?
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        // On a terminal a status line; the plain "crash loop: N kills" notes every 100 kills stay for logs.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        for index in 0..<configuration.kills {
            let elapsed = Date().timeIntervalSince(started)
            meter.update(
                ProgressStatus(
                    label: "crash loop", done: index, total: configuration.kills, unit: "kills", checks: figures.kills,
                    detail: "\(figures.acknowledgedSaves) acknowledged saves, \(figures.inconsistent) damaged stores",
                    elapsed: elapsed, secondsLeft: configuration.deadline.map { $0.timeIntervalSinceNow }))
            if let deadline = configuration.deadline, Date() > deadline { break }
            if current == nil || current?.killsLeft == 0 {
                if let old = current { removeStore(old.url) }
                let journal = configuration.journals[figures.stores % configuration.journals.count]
                let url = configuration.directory.appendingPathComponent("crash-\(figures.stores).sqlite")
                removeStore(url)
                let book = RecipeBook(seed: configuration.seed &+ UInt64(figures.stores) &* 7_919, accounts: configuration.accounts)
                // Every other pair of stores (one of each journal mode) records history.
                let history = (figures.stores / 2) % 2 == 1
                var settings = StoreSettings(journal: journal)
                settings.historyTracking = history
                do {
                    try BankWorkload.createStore(at: url, settings: settings, accounts: configuration.accounts)
                } catch {
                    details.add("cannot create store \(url.lastPathComponent): \(error)")
                    figures.childFailures += 1
                    break
                }
                current = StoreState(url: url, journal: journal, history: history, book: book, killsLeft: configuration.killsPerStore)
                figures.stores += 1
                if history { figures.historyStores += 1 }
            }
            guard var state = current else { break }
            state.killsLeft -= 1
            var arguments = ["bank-child", "--store", state.url.path, "--journal", state.journal.rawValue] + state.book.arguments + (state.history ? ["--history"] : [])
            let exact = Double(random.next() % 1_000) / 1_000 < configuration.exactKillShare
            var delay = 0.005 + Double(random.next() % 1_000) / 1_000 * configuration.maximumDelay
            if exact {
                let kinds: [FaultVFS.Kind] = [.write, .write, .write, .sync, .truncate, .delete]
                let kind = kinds[Int(random.next() % UInt64(kinds.count))]
                let k = Int(random.next() % (kind == .write ? 400 : 40))
                arguments += ["--kill-at", "\(kind.rawValue):any:\(k)"]
                delay = configuration.maximumDelay * 2  // a fallback timer
            }
            let stderrPath = configuration.directory.appendingPathComponent("child.stderr").path
            let child: ChildProcess
            do {
                child = try ChildProcess(executable: configuration.executable, arguments: arguments, stderrPath: stderrPath)
            } catch {
                details.add("cannot start the child: \(error)")
                figures.childFailures += 1
                break
            }
            let endedEarly = child.sleep(delay)
            let termination = child.killAndReap()
            figures.kills += 1
            figures.killsByJournal[state.journal, default: 0] += 1
            if termination != .signaled(SIGKILL) {
                figures.childFailures += 1
                details.add("kill \(index): the child ended by itself (\(termination)): \(child.errorOutput.suffix(400))")
            } else if exact && endedEarly {
                figures.exactKills += 1
            }
            let acknowledged = BankChild.lastAcknowledged(child.outputLines)
            figures.acknowledgedSaves += Int(max(0, acknowledged - state.confirmed))
            if state.journal == .delete, let size = fileSize(state.url.path + "-journal"), size > 0 {
                figures.hotJournals += 1
            }
            let check = BankChecker.check(state.url, settings: StoreSettings(journal: state.journal), book: state.book, acknowledged: max(acknowledged, state.confirmed))
            if check.isCorrupt { figures.corrupt += 1 }
            figures.lostAcknowledged += check.lostAcknowledged
            figures.committedNotAcknowledged += Int(max(0, check.lastSave - max(acknowledged, state.confirmed)))
            let batch = max(BankChild.lastBatch(child.outputLines), state.confirmedBatch)
            figures.acknowledgedBatches += Int(max(0, batch - state.confirmedBatch) / 4)
            var batches = BankChild.checkBatches(state.url, accounts: state.book.accounts, acknowledged: batch, lastSave: check.lastSave)
            batches.problems += BankChild.checkCounterBatches(state.url, lines: child.outputLines, lastSave: check.lastSave)
            figures.acknowledgedBatches += BankChild.counterBatches(child.outputLines).inserted.count + BankChild.counterBatches(child.outputLines).deleted.count
            if !batches.problems.isEmpty {
                figures.damagedBatches += 1
                details.add("kill \(index) (\(state.journal), \(exact ? "exact" : "timer")) on \(state.url.lastPathComponent): " + batches.problems.joined(separator: " | "))
            }
            state.confirmedBatch = max(batch, batches.found)
            if state.history, let problem = Self.historyProblem(state.url, lastSave: check.lastSave, lastBatch: batches.found, accounts: state.book.accounts) {
                figures.incompleteHistories += 1
                details.add("kill \(index) (\(state.journal), \(exact ? "exact" : "timer")) on \(state.url.lastPathComponent): \(problem)")
            }
            if !check.isConsistent {
                figures.inconsistent += 1
                details.add("kill \(index) (\(state.journal), \(exact ? "exact" : "timer")) on \(state.url.lastPathComponent): \(check)")
                // Keep the damaged store for inspection; go on with a new one.
                state.killsLeft = 0
                current = state
                let keep = configuration.directory.appendingPathComponent("damaged-\(index).sqlite")
                try? FileManager.default.copyItem(at: state.url, to: keep)
                continue
            }
            state.confirmed = max(state.confirmed, acknowledged, check.lastSave)
            current = state
            if (index + 1) % 100 == 0 {
                Progress.note("crash loop: \(index + 1) kills, \(figures.acknowledgedSaves) acknowledged saves, \(figures.inconsistent) damaged stores")
            }
        }
        if let state = current { removeStore(state.url) }
        return PartReport(
            name: "SIGKILL crash loop",
            figures: [
                Figure("kills", figures.kills, atLeast: 1),
                Figure("  of which in WAL mode", figures.killsByJournal[.wal] ?? 0),
                Figure("  of which in rollback-journal mode", figures.killsByJournal[.delete] ?? 0),
                Figure("  of which at an exact I/O operation", figures.exactKills),
                Figure("stores", figures.stores, atLeast: 1),
                Figure("acknowledged saves", figures.acknowledgedSaves, atLeast: 1),
                Figure("hot journals found after a kill", figures.hotJournals),
                Figure("corrupt stores", figures.corrupt, mustBeZero: true),
                Figure("acknowledged saves lost", figures.lostAcknowledged, mustBeZero: true),
                Figure("inconsistent stores (partial save, invariant)", figures.inconsistent, mustBeZero: true),
                Figure("saves committed but not acknowledged", figures.committedNotAcknowledged),
                Figure("acknowledged batch requests (update, insert, delete)", figures.acknowledgedBatches),
                Figure("batch requests partial or lost", figures.damagedBatches, mustBeZero: true),
                Figure("stores recording persistent history", figures.historyStores),
                Figure("histories missing or adding a transaction", figures.incompleteHistories, mustBeZero: true),
                Figure("child failures (harness)", figures.childFailures, mustBeZero: true),
            ],
            details: details.items, seconds: Date().timeIntervalSince(started))
    }
}

/// Removes a store file and its journal, WAL and shared-memory files.
public func removeStore(_ url: URL) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
}

extension CrashLoop {
    /// Why the history of a store that records it is not complete (nil when it is), read with
    /// plain SQL. Each transaction must be one of: the store's creation (the first), a save
    /// (it inserts a save record; exactly one per save present), a batch update (only the
    /// batched accounts' padding), a batch insert (only inserts of a batch's counters) or a batch
    /// delete (only deletes of a batch's counters), and nothing else.
    static func historyProblem(_ url: URL, lastSave: Int64, lastBatch: Int64, accounts: Int) -> String? {
        do {
            let db = try RawSQLite(path: url.path)
            func code(_ entity: String) throws -> Int64 { try db.rows("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(entity)'").first?.first?.int64 ?? -1 }
            let (record, account, counter) = (try code("SaveRecord"), try code("Account"), try code("Counter"))
            let first = try db.rows("SELECT min(Z_PK) FROM Z_HISTORY_TRANSACTION").first?.first?.int64 ?? 0
            let transactions = try db.rows("SELECT count(*) FROM Z_HISTORY_TRANSACTION").first?.first?.int64 ?? -1
            // Per transaction: changes, entity range, type range, save-record inserts, column range.
            let rows = try db.rows(
                """
                SELECT ZTRANSACTION, count(*), min(ZENTITY), max(ZENTITY), min(ZCHANGETYPE), max(ZCHANGETYPE),
                sum(ZENTITY = \(record) AND ZCHANGETYPE = 0), min(ZCOLUMNS), max(ZCOLUMNS) FROM Z_HISTORY_CHANGE GROUP BY ZTRANSACTION
                """)
            var saves: Int64 = 0
            var batches: Int64 = 0
            var problems: [String] = []
            for row in rows {
                let (number, changes, lowEntity, highEntity, lowType, highType) = (row[0].int64, row[1].int64, row[2].int64, row[3].int64, row[4].int64, row[5].int64)
                let oneEntity = lowEntity == highEntity ? lowEntity : -1
                let oneType = lowType == highType ? lowType : -1
                if number == first { continue }
                if row[6].int64 > 0 {
                    saves += 1
                } else if oneEntity == account && oneType == 1 && changes == Int64(BankChild.batchedAccounts(accounts)) && row[7].text == "padding" && row[8].text == "padding" {
                    batches += 1
                } else if oneEntity == counter && (oneType == 0 || oneType == 2) && changes == Int64(BankChild.countersPerBatch) {
                    batches += 1
                } else if problems.count < 3 {
                    problems.append("transaction \(number) is none of the workload's: \(changes) changes of entities \(lowEntity)…\(highEntity), types \(lowType)…\(highType)")
                }
            }
            if saves != lastSave { problems.append("\(saves) transactions insert a save record, the store holds \(lastSave) saves") }
            if transactions != Int64(rows.count) { problems.append("\(transactions) transactions, \(rows.count) with changes") }
            if lastBatch > 0 && batches == 0 { problems.append("no batch transaction, though batch \(lastBatch) is in the store") }
            return problems.isEmpty ? nil : "history: " + problems.joined(separator: "; ")
        } catch {
            return "the history cannot be read: \(error)"
        }
    }
}

/// The size of a file, or nil when it does not exist.
public func fileSize(_ path: String) -> Int64? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
    return (attributes[.size] as? NSNumber)?.int64Value
}
