import CSQLite
import Foundation
import Strata
import StrataProgress

/// Disk full: on a 2 MB tmpfs, save large payloads until a save fails; the error must be a
/// `StrataError` with `SQLITE_FULL`, the store must hold exactly the saves that succeeded, and
/// once space is freed the same context must save again.
public struct DiskFull {
    /// A folder to mount the tmpfs under.
    public let directory: URL
    /// The seed.
    public let seed: UInt64

    /// Creates the test.
    public init(directory: URL, seed: UInt64) {
        self.directory = directory
        self.seed = seed
    }

    /// Runs the test in both journal modes; a visible SKIP when it cannot mount.
    public func run() -> PartReport {
        let name = "disk full (2 MB tmpfs)"
        if let reason = Mounts.unavailableReason { return PartReport(name: name, skipped: reason) }
        let started = Date()
        var details = DetailLog()
        var fullErrors = 0
        var wrongErrors = 0
        var inconsistent = 0
        var retryFailures = 0
        var savesBeforeFull = 0
        var neverFull = 0
        // A status line on a terminal only; off one the part prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        for (journalIndex, journal) in JournalMode.allCases.enumerated() {
            meter.update(
                ProgressStatus(
                    label: "disk full", done: journalIndex, total: JournalMode.allCases.count, unit: "journal modes", checks: fullErrors,
                    detail: "\(savesBeforeFull) saves before the disk was full; now: \(journal)", elapsed: Date().timeIntervalSince(started)))
            let mountPoint = directory.appendingPathComponent("full-\(journal)")
            do {
                try Mounts.mountTmpfs(at: mountPoint, size: "2m")
            } catch {
                return PartReport(name: name, skipped: "\(error)")
            }
            defer { Mounts.unmount(mountPoint) }
            let url = mountPoint.appendingPathComponent("bank.sqlite")
            let book = RecipeBook(seed: seed, accounts: 16, payloadScale: .large, route: .plain)
            let settings = StoreSettings(journal: journal)
            do {
                try BankWorkload.createStore(at: url, settings: settings, accounts: 16)
                var saved: Int64 = 0
                var failure: (any Error)?
                var pending: PreparedSave?
                try withExtendedLifetime(try BankStack(url: url, settings: settings)) { stack in
                    let root = stack.newContext()
                    for number in Int64(1)...200 {
                        let prepared = try BankWorkload.prepare(book.recipe(number), root: root)
                        do {
                            try prepared.commit()
                            saved = number
                        } catch {
                            failure = error
                            pending = prepared
                            break
                        }
                    }
                    guard let failure, let pending else {
                        neverFull += 1
                        details.add("\(journal): 200 saves of 48–64 KB fit on a 2 MB tmpfs")
                        return
                    }
                    savesBeforeFull += Int(saved)
                    if let strata = failure as? StrataError, strata.sqliteCode == SQLITE_FULL {
                        fullErrors += 1
                    } else {
                        wrongErrors += 1
                        details.add("\(journal): the save on a full disk threw \(failure)")
                    }
                    if let problem = FaultSweep.contextProblem(pending) {
                        inconsistent += 1
                        details.add("\(journal): after SQLITE_FULL: \(problem)")
                    }
                    // The store as another process would see it now.
                    let contents = try StoreContents.read(url, readWrite: true)
                    let check = BankChecker.verify(contents, book: book, acknowledged: saved)
                    if !check.isConsistent || check.lastSave != saved {
                        inconsistent += 1
                        details.add("\(journal): on the full disk: \(check) (last save \(check.lastSave), \(saved) saved)")
                    }
                    // Free space: grow the tmpfs, then the same context saves again.
                    try Mounts.remount(mountPoint, readOnly: false, size: "16m")
                    do {
                        try pending.commit()
                        saved += 1
                    } catch {
                        retryFailures += 1
                        details.add("\(journal): saving again after space was freed failed: \(error)")
                    }
                    stack.close()
                }
                let check = BankChecker.check(url, settings: settings, book: book, acknowledged: saved)
                if !check.isConsistent || check.lastSave != saved {
                    inconsistent += 1
                    details.add("\(journal): reopened after the disk-full episode: \(check) (\(saved) saved)")
                }
            } catch {
                inconsistent += 1
                details.add("\(journal): \(error)")
            }
        }
        return PartReport(
            name: name,
            figures: [
                Figure("saves before the disk was full", savesBeforeFull, atLeast: 1),
                Figure("saves failed with StrataError + SQLITE_FULL", fullErrors, atLeast: 1),
                Figure("full disk reported otherwise", wrongErrors, mustBeZero: true),
                Figure("disk never filled", neverFull, mustBeZero: true),
                Figure("inconsistent stores or contexts", inconsistent, mustBeZero: true),
                Figure("saves that failed again after freeing space", retryFailures, mustBeZero: true),
            ],
            details: details.items, seconds: Date().timeIntervalSince(started))
    }
}
