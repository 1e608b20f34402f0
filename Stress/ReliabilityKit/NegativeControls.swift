import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Damage the checker must see, made on purpose: if these pass unnoticed, a clean crash loop
/// proves nothing.
///
/// 1. Rollback journal: the writer is SIGKILLed in the middle of writing a commit to the
///    database file (at an exact write, through the fault VFS), then the hot journal is deleted.
///    The same files with the journal kept must check clean.
/// 2. WAL: after acknowledged saves, the database file is copied without its `-wal` file.
///    The original (with its WAL) must check clean.
public struct NegativeControls {
    /// The `StrataReliability` executable.
    public let executable: String
    /// A folder for the stores.
    public let directory: URL
    /// The seed.
    public let seed: UInt64
    /// Database writes after which the writer is killed (one run each).
    public var killPoints = [4, 8, 16, 32]

    /// Creates the controls.
    public init(executable: String, directory: URL, seed: UInt64) {
        self.executable = executable
        self.directory = directory
        self.seed = seed
    }

    /// Runs both controls.
    public func run() -> PartReport {
        let started = Date()
        var details = DetailLog()
        var journalRuns = 0
        var journalDetected = 0
        var intactFalseAlarms = 0
        var notMidTransaction = 0
        var harnessFailures = 0
        var notes: [String] = []
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // 1. Hot journal deleted.
        let accounts = 600
        let book = RecipeBook(seed: seed, accounts: accounts, payloadScale: .none, route: .plain, maximumTransfers: 80)
        let template = directory.appendingPathComponent("control-template.sqlite")
        removeStore(template)
        do {
            try BankWorkload.createStore(at: template, settings: StoreSettings(journal: .delete), accounts: accounts, paddingLength: 300)
        } catch {
            return PartReport(name: "negative controls", figures: [Figure("harness failures", 1, mustBeZero: true)], details: ["cannot create the store: \(error)"])
        }
        for k in killPoints {
            let url = directory.appendingPathComponent("control-journal.sqlite")
            removeStore(url)
            try? FileManager.default.copyItem(at: template, to: url)
            let arguments = ["bank-child", "--store", url.path, "--journal", "DELETE", "--kill-at", "write:database:\(k)"] + book.arguments
            guard let child = try? ChildProcess(executable: executable, arguments: arguments, stderrPath: directory.appendingPathComponent("control.stderr").path) else {
                harnessFailures += 1
                continue
            }
            let ended = child.wait(timeout: 30)
            let acknowledged = BankChild.lastAcknowledged(child.outputLines)
            guard ended == .signaled(SIGKILL) else {
                harnessFailures += 1
                details.add("K=\(k): the writer was not killed (\(ended.map(String.init(describing:)) ?? "watchdog")): \(child.errorOutput.suffix(300))")
                continue
            }
            guard let size = fileSize(url.path + "-journal"), size > 0 else {
                notMidTransaction += 1
                details.add("K=\(k): no hot journal after the kill")
                continue
            }
            journalRuns += 1
            // The intact files (journal kept) must check clean.
            let intact = directory.appendingPathComponent("control-intact.sqlite")
            removeStore(intact)
            try? FileManager.default.copyItem(atPath: url.path, toPath: intact.path)
            try? FileManager.default.copyItem(atPath: url.path + "-journal", toPath: intact.path + "-journal")
            let clean = BankChecker.check(intact, settings: StoreSettings(journal: .delete), book: book, acknowledged: acknowledged)
            if !clean.isConsistent {
                intactFalseAlarms += 1
                details.add("K=\(k): the store WITH its hot journal checks as damaged: \(clean)")
            }
            removeStore(intact)
            // Now the damage: the hot journal disappears.
            try? FileManager.default.removeItem(atPath: url.path + "-journal")
            let damaged = BankChecker.check(url, settings: StoreSettings(journal: .delete), book: book, acknowledged: acknowledged)
            if damaged.isConsistent {
                details.add("K=\(k): deleting the hot journal went unnoticed")
            } else {
                journalDetected += 1
                notes.append("K=\(k): hot journal of \(size) bytes deleted, \(acknowledged) saves acknowledged before: \(damaged)")
            }
            removeStore(url)
        }
        removeStore(template)
        // 2. A WAL store copied without its -wal file.
        var walDetected = 0
        var walRuns = 0
        let walBook = RecipeBook(seed: seed &+ 1, accounts: 32, payloadScale: .none, route: .plain)
        let original = directory.appendingPathComponent("control-wal.sqlite")
        let copy = directory.appendingPathComponent("control-wal-copy.sqlite")
        removeStore(original)
        removeStore(copy)
        do {
            try BankWorkload.createStore(at: original, settings: StoreSettings(journal: .wal), accounts: 32)
            let child = try ChildProcess(
                executable: executable, arguments: ["bank-child", "--store", original.path, "--journal", "WAL", "--stop-after", "20"] + walBook.arguments,
                stderrPath: directory.appendingPathComponent("control.stderr").path)
            let ended = child.wait(timeout: 60)
            let acknowledged = BankChild.lastAcknowledged(child.outputLines)
            if ended != .signaled(SIGKILL) || acknowledged != 20 {
                harnessFailures += 1
                details.add("WAL: the writer ended \(ended.map(String.init(describing:)) ?? "by the watchdog") after \(acknowledged) saves: \(child.errorOutput.suffix(300))")
            } else {
                walRuns += 1
                try FileManager.default.copyItem(at: original, to: copy)
                let damaged = BankChecker.check(copy, settings: StoreSettings(journal: .wal), book: walBook, acknowledged: acknowledged)
                if damaged.lostAcknowledged > 0 || !damaged.isConsistent {
                    walDetected += 1
                    notes.append("WAL copy without -wal after \(acknowledged) acknowledged saves: \(damaged)")
                } else {
                    details.add("WAL: the copy without its -wal file went unnoticed")
                }
                let clean = BankChecker.check(original, settings: StoreSettings(journal: .wal), book: walBook, acknowledged: acknowledged)
                if !clean.isConsistent {
                    intactFalseAlarms += 1
                    details.add("WAL: the original store with its -wal file checks as damaged: \(clean)")
                }
            }
        } catch {
            harnessFailures += 1
            details.add("WAL: \(error)")
        }
        removeStore(original)
        removeStore(copy)
        var report = PartReport(
            name: "negative controls (damage the checker must see)",
            figures: [
                Figure("hot journals deleted (rollback, killed mid-commit)", journalRuns, atLeast: 1),
                Figure("  detected", journalDetected),
                Figure("  undetected", journalRuns - journalDetected, mustBeZero: true),
                Figure("WAL stores copied without -wal", walRuns, atLeast: 1),
                Figure("  detected", walDetected),
                Figure("  undetected", walRuns - walDetected, mustBeZero: true),
                Figure("intact stores reported damaged", intactFalseAlarms, mustBeZero: true),
                Figure("kills that left no hot journal", notMidTransaction, mustBeZero: true),
                Figure("harness failures", harnessFailures + (journalRuns == 0 ? 1 : 0) + (walRuns == 0 ? 1 : 0), mustBeZero: true),
            ],
            details: details.items, seconds: Date().timeIntervalSince(started))
        report.notes = notes
        return report
    }
}
