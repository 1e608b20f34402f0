import Foundation
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
        for index in 0..<configuration.kills {
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
            let batches = BankChild.checkBatches(state.url, accounts: state.book.accounts, acknowledged: batch, lastSave: check.lastSave)
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
                Figure("acknowledged batch updates", figures.acknowledgedBatches),
                Figure("batch updates partial or lost", figures.damagedBatches, mustBeZero: true),
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
    /// plain SQL: one transaction for the store's creation, one inserting each save's record
    /// (exactly the saves present), one per batch update that ran (each updating the batched
    /// accounts only; at most one per fourth save, a kill may skip one), and nothing else.
    static func historyProblem(_ url: URL, lastSave: Int64, lastBatch: Int64, accounts: Int) -> String? {
        do {
            let db = try RawSQLite(path: url.path)
            func count(_ sql: String) throws -> Int64 { try db.rows(sql).first?.first?.int64 ?? -1 }
            let transactions = try count("SELECT count(*) FROM Z_HISTORY_TRANSACTION")
            let record = try count("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'SaveRecord'")
            let account = try count("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Account'")
            let saves = try count("SELECT count(DISTINCT ZTRANSACTION) FROM Z_HISTORY_CHANGE WHERE ZENTITY = \(record) AND ZCHANGETYPE = 0")
            let batches = try count(
                """
                SELECT count(*) FROM (SELECT ZTRANSACTION FROM Z_HISTORY_CHANGE GROUP BY ZTRANSACTION
                HAVING count(*) = \(BankChild.batchedAccounts(accounts)) AND min(ZENTITY) = \(account) AND max(ZENTITY) = \(account)
                AND min(ZCHANGETYPE) = 1 AND max(ZCHANGETYPE) = 1 AND min(ZCOLUMNS) = 'padding' AND max(ZCOLUMNS) = 'padding')
                """)
            var problems: [String] = []
            if saves != lastSave { problems.append("\(saves) transactions insert a save record, the store holds \(lastSave) saves") }
            if batches > lastBatch / 4 || (lastBatch > 0 && batches == 0) {
                problems.append("\(batches) batch-update transactions, the last batch present is \(lastBatch)")
            }
            if transactions != 1 + saves + batches {
                problems.append("\(transactions) transactions: the creation, \(saves) saves and \(batches) batch updates make \(1 + saves + batches)")
            }
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
