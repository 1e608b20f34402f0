import CSQLite
import Foundation
import Strata
import StrataProgress

/// I/O-fault injection: for each journal setting, save route, fault kind and mode, the Kth
/// write/sync/truncate/delete fails (K = 0, 1, 2… until no fault fires), while a save runs and
/// while the store closes. Every failed save must throw a `StrataError` carrying the SQLite
/// code, leave the store consistent and without the save (also after a crash right then), keep
/// the context's changes, and save again once the fault clears.
public struct FaultSweep {
    /// One kind of fault: which operation fails, with which SQLite code.
    public struct Fault: Sendable, CustomStringConvertible {
        /// The failing operation.
        public var kind: FaultVFS.Kind
        /// The (extended) code it fails with.
        public var errorCode: Int32
        /// A short name.
        public var name: String

        public var description: String { name }

        /// Every fault the sweep knows: I/O errors on each operation, and a full disk on writes.
        public static let all: [Fault] = [
            Fault(kind: .write, errorCode: FaultVFS.Kind.write.ioErrorCode, name: "write IOERR"),
            Fault(kind: .write, errorCode: SQLITE_FULL, name: "write FULL"),
            Fault(kind: .sync, errorCode: FaultVFS.Kind.sync.ioErrorCode, name: "sync IOERR"),
            Fault(kind: .truncate, errorCode: FaultVFS.Kind.truncate.ioErrorCode, name: "truncate IOERR"),
            Fault(kind: .delete, errorCode: FaultVFS.Kind.delete.ioErrorCode, name: "delete IOERR"),
        ]
    }

    /// What to sweep.
    public struct Configuration: Sendable {
        /// A folder for the stores.
        public var directory: URL
        /// The seed of the saves.
        public var seed: UInt64
        /// The registered fault VFS.
        public var vfs: FaultVFS
        /// Journal settings.
        public var settings: [StoreSettings] = [
            StoreSettings(journal: .wal), StoreSettings(journal: .wal, synchronous: "FULL"),
            StoreSettings(journal: .delete), StoreSettings(journal: .delete, synchronous: "FULL"),
        ]
        /// Save routes.
        public var routes: [SaveRecipe.Route] = SaveRecipe.Route.allCases
        /// Faults.
        public var faults: [Fault] = Fault.all
        /// Modes.
        public var modes: [FaultVFS.Mode] = [.once, .persistent]
        /// Saves already in the store before the faulted one.
        public var savesBefore = 3
        /// Accounts.
        public var accounts = 24
        /// A bound on K (a sweep that reaches it is reported as incomplete).
        public var maximumK = 600
        /// Stop early after this moment.
        public var deadline: Date?

        /// Creates a configuration.
        public init(directory: URL, seed: UInt64, vfs: FaultVFS) {
            self.directory = directory
            self.seed = seed
            self.vfs = vfs
        }
    }

    /// The counts of a sweep.
    public struct Figures: Sendable {
        /// Runs in which the fault fired (the fault points swept).
        public var faultPoints = 0
        /// Runs in all (the last of each sequence fires nothing).
        public var runs = 0
        /// Sequences (setting × route × fault × mode) run to the end.
        public var sequences = 0
        /// Sequences stopped by `maximumK` or the deadline.
        public var incompleteSequences = 0
        /// Saves that threw because of a fault.
        public var failedSaves = 0
        /// Failed saves whose error was not a StrataError with the injected SQLite code.
        public var wrongErrors = 0
        /// Stores inconsistent at any check (corrupt, invariant, partial save, Strata ≠ file).
        public var inconsistentStores = 0
        /// Saves reported failed that were in the store anyway.
        public var failedButCommitted = 0
        /// Saves reported failed that a crash right after the failure would have committed,
        /// other than the documented SQLite case below.
        public var failedButCommittedAfterCrash = 0
        /// WAL with synchronous=FULL, the WAL's fsync failing after the commit frame was written:
        /// SQLite reports the error and ignores the frames, but they stay valid in the -wal file,
        /// so a crash before the next write transaction (or a clean close) commits them on
        /// recovery. Reported, documented in docs/reliability.md, not counted as a failure.
        public var ambiguousCommitsAfterCrash = 0
        /// Failed saves after which the context no longer held its changes (or had remapped IDs).
        public var changesLost = 0
        /// Failed saves that could not be saved again once the fault cleared.
        public var retryFailures = 0
        /// Runs after which files stayed open through the VFS (a connection leak).
        public var leakedConnections = 0
        /// Saves that failed with no fault injected.
        public var unexpectedFailures = 0
        /// Saves spanning two stores whose second COMMIT failed after the first store committed:
        /// reported as 134040 (SQLite cannot commit several WAL files atomically).
        public var incompleteSaves = 0
        /// Per fault: fault points.
        public var pointsByFault: [String: Int] = [:]
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a sweep.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// Runs the sweep and returns its report.
    public func run() -> PartReport {
        let started = Date()
        var figures = Figures()
        var details = DetailLog()
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        // A status line on a terminal only; off one the part prints its report at the end, as before.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        let sequenceCount = configuration.settings.count * configuration.routes.count * configuration.faults.count * configuration.modes.count
        let progress = SweepProgress(meter: meter, label: "fault sweep", sequenceCount: sequenceCount, started: started, deadline: configuration.deadline)
        var sequenceIndex = 0
        sequences: for settings in configuration.settings {
            for route in configuration.routes {
                let baseline: Baseline
                do {
                    baseline = try makeBaseline(settings: settings, route: route)
                } catch {
                    details.add("cannot make the baseline store for \(settings) \(route): \(error)")
                    figures.unexpectedFailures += 1
                    continue
                }
                for fault in configuration.faults {
                    for mode in configuration.modes {
                        sequenceIndex += 1
                        let label = { (k: Int) in "\(settings) \(route.rawValue) \(fault) \(mode.rawValue) K=\(k)" }
                        let sequence = FaultPointSequence.run(
                            maximumK: configuration.maximumK, deadline: configuration.deadline,
                            beforeRun: progress.beforeRun(sequence: sequenceIndex, runs: figures.runs, faultPoints: figures.faultPoints, name: label),
                            { k in runOnce(baseline: baseline, fault: fault, mode: mode, k: k, label: label(k), figures: &figures, details: &details) })
                        figures.runs += sequence.runs
                        figures.faultPoints += sequence.faultPoints
                        figures.pointsByFault[fault.name, default: 0] += sequence.faultPoints
                        switch sequence.end {
                        case .swept:
                            figures.sequences += 1
                        case .kBound(let k):
                            figures.incompleteSequences += 1
                            details.add("\(label(k)): still firing at the K bound")
                        case .deadline:
                            figures.incompleteSequences += 1
                            break sequences
                        }
                    }
                }
                removeStore(baseline.url)
                if let auditURL = baseline.auditURL { removeStore(auditURL) }
            }
        }
        var list = [
            Figure("fault points swept (runs where the fault fired)", figures.faultPoints, atLeast: 1)
        ]
        for fault in configuration.faults {
            list.append(Figure("  \(fault.name)", figures.pointsByFault[fault.name] ?? 0))
        }
        list += [
            Figure("runs", figures.runs, atLeast: 1),
            Figure("sequences swept to the end", figures.sequences),
            Figure("saves failed by a fault", figures.failedSaves, atLeast: 1),
            Figure("inconsistent stores", figures.inconsistentStores, mustBeZero: true),
            Figure("failed saves found committed", figures.failedButCommitted, mustBeZero: true),
            Figure("failed saves committed after a crash", figures.failedButCommittedAfterCrash, mustBeZero: true),
            Figure("  WAL fsync failed after the commit frame (SQLite)", figures.ambiguousCommitsAfterCrash),
            Figure("two-store saves split at COMMIT, reported 134040", figures.incompleteSaves),
            Figure("errors without a StrataError + SQLite code", figures.wrongErrors, mustBeZero: true),
            Figure("contexts that lost their changes", figures.changesLost, mustBeZero: true),
            Figure("saves that failed again after the fault", figures.retryFailures, mustBeZero: true),
            Figure("leaked connections", figures.leakedConnections, mustBeZero: true),
            Figure("unexpected failures (no fault)", figures.unexpectedFailures, mustBeZero: true),
            Figure("incomplete sequences (K bound, deadline)", figures.incompleteSequences, mustBeZero: configuration.deadline == nil),
        ]
        return PartReport(name: "I/O-fault injection", figures: list, details: details.items, seconds: Date().timeIntervalSince(started))
    }

    // MARK: One run

    struct Baseline {
        var url: URL
        /// The audit store of route `.audited` (one save across two store files).
        var auditURL: URL?
        var settings: StoreSettings
        var book: RecipeBook
        var saves: Int64
    }

    private func makeBaseline(settings: StoreSettings, route: SaveRecipe.Route) throws -> Baseline {
        let name = "baseline-\(settings.journal)-\(settings.synchronous ?? "default")-\(route.rawValue).sqlite"
        let url = configuration.directory.appendingPathComponent(name)
        let auditURL = route == .audited ? configuration.directory.appendingPathComponent("audit-" + name) : nil
        removeStore(url)
        if let auditURL { removeStore(auditURL) }
        let book = RecipeBook(seed: configuration.seed, accounts: configuration.accounts, route: route)
        try BankWorkload.createStore(at: url, auditURL: auditURL, settings: settings.withoutVFS, accounts: configuration.accounts)
        try withExtendedLifetime(try BankStack(url: url, auditURL: auditURL, settings: settings.withoutVFS)) { stack in
            let root = stack.newContext()
            for number in 1...Int64(configuration.savesBefore) { try BankWorkload.save(book.recipe(number), root: root) }
            stack.close()
        }
        return Baseline(url: url, auditURL: auditURL, settings: settings, book: book, saves: Int64(configuration.savesBefore))
    }

    /// Runs one faulted save; returns whether the fault fired.
    private func runOnce(baseline: Baseline, fault: Fault, mode: FaultVFS.Mode, k: Int, label: String, figures: inout Figures, details: inout DetailLog) -> Bool {
        let vfs = configuration.vfs
        let url = configuration.directory.appendingPathComponent("run.sqlite")
        let auditURL = baseline.auditURL.map { _ in configuration.directory.appendingPathComponent("run-audit.sqlite") }
        for (source, target) in [(baseline.url, url)] + (baseline.auditURL.flatMap { source in auditURL.map { [(source, $0)] } } ?? []) {
            removeStore(target)
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
                try? FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
            }
        }
        vfs.disarm()
        let number = baseline.saves + 1
        let outcome = faultedSave(url: url, auditURL: auditURL, baseline: baseline, number: number, fault: fault, mode: mode, k: k, label: label, figures: &figures, details: &details)
        let fired = vfs.fired > 0
        vfs.disarm()
        if vfs.openFiles != 0 {
            figures.leakedConnections += 1
            details.add("\(label): \(vfs.openFiles) file(s) still open through the VFS after the store was closed")
        }
        // Reopen with Strata and check everything.
        let saved = outcome.saved
        let check = BankChecker.check(url, auditURL: auditURL, settings: baseline.settings, book: baseline.book, acknowledged: saved ? number : baseline.saves)
        let problems = Self.problems(check, allowingSplitOf: outcome.incomplete ? number : nil)
        if !problems.isEmpty {
            figures.inconsistentStores += 1
            details.add("\(label): after reopening: " + problems.prefix(4).joined(separator: " | "))
        } else if outcome.incomplete {
            // Reported as incomplete (134040): the split is the documented outcome.
        } else if !saved && check.lastSave >= number {
            figures.failedButCommitted += 1
            details.add("\(label): the save failed (and failed again) but is in the store")
        } else if saved && check.lastSave != number {
            details.add("\(label): the save succeeded but the store holds saves up to \(check.lastSave)")
            figures.inconsistentStores += 1
        }
        if !fired && outcome.failed {
            figures.unexpectedFailures += 1
        }
        removeStore(url)
        if let auditURL { removeStore(auditURL) }
        return fired
    }

    private struct Outcome {
        var saved = false
        var failed = false
        /// The save threw 134040: it spanned two stores and only one committed.
        var incomplete = false
    }

    /// The problems of `check`, less the split of save `number` (when the save reported itself
    /// incomplete with 134040).
    static func problems(_ check: BankCheck, allowingSplitOf number: Int64?) -> [String] {
        guard let number else { return check.problems }
        return check.problems.filter { !$0.hasPrefix("split save \(number):") }
    }

    /// Opens the store through the fault VFS, stages the save, arms the fault, saves; after a
    /// failure runs the checks and saves again. Everything opened here is closed on return.
    private func faultedSave(url: URL, auditURL: URL?, baseline: Baseline, number: Int64, fault: Fault, mode: FaultVFS.Mode, k: Int, label: String, figures: inout Figures, details: inout DetailLog)
        -> Outcome
    {
        let vfs = configuration.vfs
        var outcome = Outcome()
        var settings = baseline.settings
        settings.vfsName = vfs.name
        let stack: BankStack
        let prepared: PreparedSave
        do {
            stack = try BankStack(url: url, auditURL: auditURL, settings: settings)
            prepared = try BankWorkload.prepare(baseline.book.recipe(number), root: stack.newContext())
        } catch {
            figures.unexpectedFailures += 1
            details.add("\(label): cannot open and stage (no fault armed yet): \(error)")
            return outcome
        }
        defer { stack.close() }
        vfs.arm(fault.kind, at: k, mode: mode, errorCode: fault.errorCode)
        do {
            try prepared.commit()
            outcome.saved = true
            return outcome
        } catch {
            outcome.failed = true
            if vfs.fired == 0 {
                details.add("\(label): the save failed with no fault injected: \(error)")
                return outcome
            }
            figures.failedSaves += 1
            if (error as? StrataError)?.code == StrataError.Code.persistentStoreIncompleteSave {
                outcome.incomplete = true
                figures.incompleteSaves += 1
            }
            if let problem = Self.errorProblem(error, injected: fault.errorCode) {
                figures.wrongErrors += 1
                details.add("\(label): \(problem)")
            }
        }
        if mode == .persistent { vfs.disarm() }
        if let problem = Self.contextProblem(prepared) {
            figures.changesLost += 1
            details.add("\(label): after the failed save: \(problem)")
        }
        // A crash right now: what would the next process find?
        // WAL + fsync failing after the commit frame: SQLite ignores the frames but they stay
        // valid in the -wal file, so a crash now commits them (for a two-store save: in one
        // store only). Documented, counted apart.
        let walSyncAmbiguity = fault.kind == .sync && baseline.settings.journal == .wal
        switch crashImageCheck(url: url, auditURL: auditURL, baseline: baseline, number: number, allowingSplit: outcome.incomplete || walSyncAmbiguity) {
        case .committed where outcome.incomplete:
            break
        case .committed where walSyncAmbiguity:
            figures.ambiguousCommitsAfterCrash += 1
        case .committed:
            figures.failedButCommittedAfterCrash += 1
            details.add("\(label): the save failed, but a copy of the files taken right after the failure holds it")
        case .damaged(let check):
            figures.inconsistentStores += 1
            details.add("\(label): a copy of the files taken right after the failure: \(check)")
        case .fine:
            break
        }
        // The live store, read apart from Strata (rolls back a hot journal if one was left).
        do {
            let contents = try StoreContents.read(url, readWrite: true)
            let audit = try auditURL.map { try StoreContents.read($0, readWrite: true) }
            let check = BankChecker.verify(contents, audit: audit, book: baseline.book, acknowledged: baseline.saves)
            let problems = Self.problems(check, allowingSplitOf: outcome.incomplete ? number : nil)
            if !problems.isEmpty {
                figures.inconsistentStores += 1
                details.add("\(label): right after the failed save: " + problems.prefix(4).joined(separator: " | "))
            } else if check.lastSave >= number && !outcome.incomplete {
                figures.failedButCommitted += 1
                details.add("\(label): the save threw, but the store holds it")
            }
            // What Strata (row cache, readers) now says about the store must be what it holds.
            let strataProblems = BankChecker.compareWithStrata(stack, contents: contents)
            if !strataProblems.isEmpty {
                figures.inconsistentStores += 1
                details.add("\(label): Strata's view after the failed save: " + strataProblems.joined(separator: "; "))
            }
        } catch {
            figures.inconsistentStores += 1
            details.add("\(label): the store cannot be read after the failed save: \(error)")
        }
        // The fault has cleared: the same context saves again (not after 134040: the committed
        // part would be written twice; the error says to reset first).
        if outcome.incomplete { return outcome }
        do {
            try prepared.commit()
            outcome.saved = true
            let ok = prepared.root.performAndWait { !prepared.root.hasChanges && !prepared.record.objectID.isTemporaryID }
            if !ok {
                figures.changesLost += 1
                details.add("\(label): after the second save the context still has changes or temporary IDs")
            }
        } catch {
            figures.retryFailures += 1
            details.add("\(label): saving again after the fault cleared failed: \(error)")
        }
        return outcome
    }

    enum ImageResult {
        case fine
        case committed
        case damaged(BankCheck)
    }

    /// Copies the store's files as they are now (not the shared-memory index, which a crash
    /// would not keep coherent) and checks what recovery makes of them.
    private func crashImageCheck(url: URL, auditURL: URL?, baseline: Baseline, number: Int64, allowingSplit: Bool) -> ImageResult {
        let image = configuration.directory.appendingPathComponent("image.sqlite")
        let auditImage = configuration.directory.appendingPathComponent("image-audit.sqlite")
        defer {
            removeStore(image)
            removeStore(auditImage)
        }
        for (source, target) in [(url, image)] + (auditURL.map { [($0, auditImage)] } ?? []) {
            removeStore(target)
            for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
                try? FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
            }
        }
        do {
            let contents = try StoreContents.read(image, readWrite: true)
            let audit = try auditURL.map { _ in try StoreContents.read(auditImage, readWrite: true) }
            let check = BankChecker.verify(contents, audit: audit, book: baseline.book, acknowledged: baseline.saves)
            if !Self.problems(check, allowingSplitOf: allowingSplit ? number : nil).isEmpty { return .damaged(check) }
            let audited = (audit ?? contents).audits.contains { $0.saveNumber == number }
            return check.lastSave >= number || audited ? .committed : .fine
        } catch {
            return .damaged(BankCheck(isCorrupt: true, problems: ["cannot read: \(error)"], lastSave: 0, lostAcknowledged: 0, committedNotAcknowledged: 0, invariantHolds: false))
        }
    }

    /// Why `error` is not what a faulted save must throw, or nil when it is.
    static func errorProblem(_ error: any Error, injected: Int32) -> String? {
        guard let strata = error as? StrataError else { return "the save threw \(type(of: error)), not a StrataError: \(error)" }
        guard let code = strata.sqliteCode else { return "the StrataError has no SQLite code: \(strata)" }
        if code != injected & 0xFF {
            return "the StrataError carries SQLite code \(strata.sqliteExtendedCode ?? code), the fault injected \(injected): \(strata.message)"
        }
        let codes = [StrataError.Code.sqlite, StrataError.Code.persistentStoreSave, StrataError.Code.persistentStoreIncompleteSave]
        if !codes.contains(strata.code) {
            return "StrataError code \(strata.code) for an I/O failure: \(strata.message)"
        }
        return nil
    }

    /// Whether the root context still holds the failed save's changes, unmapped.
    static func contextProblem(_ prepared: PreparedSave) -> String? {
        let root = prepared.root
        return root.performAndWait {
            if !root.hasChanges { return "the context has no changes left" }
            let record = prepared.record
            if record.isDeleted || record.managedObjectContext !== root { return "the SaveRecord left the context" }
            if !record.isInserted { return "the SaveRecord is no longer an insertion" }
            if (record.value(forKey: "number") as? Int64) != prepared.recipe.number { return "the SaveRecord lost its values" }
            if prepared.recipe.route != .permanentIDs && !record.objectID.isTemporaryID {
                return "the SaveRecord got a permanent ID although nothing was committed"
            }
            let transfers = root.insertedObjects.filter { $0.entity.name == "Transfer" }.count
            if transfers != prepared.recipe.transfers.count { return "\(transfers) inserted transfers left, \(prepared.recipe.transfers.count) made" }
            return nil
        }
    }
}
