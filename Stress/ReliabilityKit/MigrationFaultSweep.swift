import Foundation
import Strata
import StrataProgress

/// I/O-fault injection into lightweight migration: a bank store at the first model version
/// (three saves in it) is added with the next version (``BankModel/makeNext()``) and automatic
/// migration, and the Kth write/sync/truncate/delete fails (K = 0, 1, 2… until no fault fires),
/// for each journal setting, fault kind and mode. A failed migration must throw a
/// `StrataError` carrying the SQLite code and leave the file exactly as it was — as the live
/// file reads it and as a copy of the files taken right then (a crash) recovers it — and adding
/// the store again once the fault clears must migrate it; a migration that succeeds must leave
/// exactly what a migration without faults leaves. All or nothing.
public struct MigrationFaultSweep {
    /// What to sweep.
    public struct Configuration: Sendable {
        /// A folder for the stores.
        public var directory: URL
        /// The seed of the saves in the store before the migration.
        public var seed: UInt64
        /// The registered fault VFS.
        public var vfs: FaultVFS
        /// Journal settings (the last one records persistent history).
        public var settings: [StoreSettings] = {
            var tracked = StoreSettings(journal: .wal)
            tracked.historyTracking = true
            return [StoreSettings(journal: .wal), StoreSettings(journal: .delete, synchronous: "FULL"), tracked]
        }()
        /// Faults.
        public var faults: [FaultSweep.Fault] = FaultSweep.Fault.all
        /// Modes.
        public var modes: [FaultVFS.Mode] = [.once, .persistent]
        /// Accounts.
        public var accounts = 24
        /// A bound on K (a sweep that reaches it is reported as incomplete).
        public var maximumK = 2_000
        /// Stop early after this moment.
        public var deadline: Date?

        /// Creates a configuration.
        public init(directory: URL, seed: UInt64, vfs: FaultVFS) {
            self.directory = directory
            self.seed = seed
            self.vfs = vfs
        }
    }

    struct Figures {
        var faultPoints = 0
        var runs = 0
        var sequences = 0
        var incompleteSequences = 0
        var failedMigrations = 0
        var wrongErrors = 0
        var partialStores = 0
        var failedButMigrated = 0
        var failedButMigratedAfterCrash = 0
        var ambiguousAfterCrash = 0
        var retryFailures = 0
        var leakedFiles = 0
        var unexpectedFailures = 0
    }

    struct Baseline {
        var url: URL
        var settings: StoreSettings
        var before: [String]
        var after: [String]
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
        // A status line on a terminal only; off one the part prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        let sequenceCount = configuration.settings.count * configuration.faults.count * configuration.modes.count
        let progress = SweepProgress(meter: meter, label: "migration fault sweep", sequenceCount: sequenceCount, started: started, deadline: configuration.deadline)
        var sequenceIndex = 0
        sequences: for settings in configuration.settings {
            let baseline: Baseline
            do {
                baseline = try makeBaseline(settings: settings)
            } catch {
                details.add("cannot make the baseline store for \(settings): \(error)")
                figures.unexpectedFailures += 1
                continue
            }
            defer { removeStore(baseline.url) }
            for fault in configuration.faults {
                for mode in configuration.modes {
                    sequenceIndex += 1
                    let label = { (k: Int) in "\(settings) migration \(fault) \(mode.rawValue) K=\(k)" }
                    let sequence = FaultPointSequence.run(
                        maximumK: configuration.maximumK, deadline: configuration.deadline,
                        beforeRun: progress.beforeRun(sequence: sequenceIndex, runs: figures.runs, faultPoints: figures.faultPoints, name: label),
                        { k in runOnce(baseline, fault: fault, mode: mode, k: k, label: label(k), figures: &figures, details: &details) })
                    figures.runs += sequence.runs
                    figures.faultPoints += sequence.faultPoints
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
        }
        let list = [
            Figure("fault points swept in migrations", figures.faultPoints, atLeast: 1),
            Figure("runs", figures.runs, atLeast: 1),
            Figure("sequences swept to the end", figures.sequences),
            Figure("migrations failed by a fault", figures.failedMigrations, atLeast: 1),
            Figure("stores neither before nor after the migration", figures.partialStores, mustBeZero: true),
            Figure("failed migrations found migrated", figures.failedButMigrated, mustBeZero: true),
            Figure("failed migrations migrated after a crash", figures.failedButMigratedAfterCrash, mustBeZero: true),
            Figure("  WAL fsync failed after the commit frame (SQLite)", figures.ambiguousAfterCrash),
            Figure("errors without a StrataError + SQLite code", figures.wrongErrors, mustBeZero: true),
            Figure("migrations that failed again after the fault", figures.retryFailures, mustBeZero: true),
            Figure("files left open", figures.leakedFiles, mustBeZero: true),
            Figure("unexpected failures (no fault)", figures.unexpectedFailures, mustBeZero: true),
            Figure("incomplete sequences (K bound, deadline)", figures.incompleteSequences, mustBeZero: configuration.deadline == nil),
        ]
        return PartReport(name: "I/O-fault injection into migration", figures: list, details: details.items, seconds: Date().timeIntervalSince(started))
    }

    /// A bank store at the first version with three saves, and the fingerprints before and
    /// after a migration without faults.
    private func makeBaseline(settings: StoreSettings) throws -> Baseline {
        let url = configuration.directory.appendingPathComponent("migration-baseline-\(settings.journal)\(settings.historyTracking ? "-history" : "").sqlite")
        removeStore(url)
        let book = RecipeBook(seed: configuration.seed, accounts: configuration.accounts, route: .plain)
        try BankWorkload.createStore(at: url, settings: settings.withoutVFS, accounts: configuration.accounts)
        try withExtendedLifetime(try BankStack(url: url, settings: settings.withoutVFS)) { stack in
            let root = stack.newContext()
            for number in 1...Int64(3) { try BankWorkload.save(book.recipe(number), root: root) }
            stack.close()
        }
        let before = try StoreFileFingerprint.lines(url)
        let copy = configuration.directory.appendingPathComponent("migration-expected.sqlite")
        try BatchFaultSweep.copyStore(url, to: copy)
        defer { removeStore(copy) }
        try Self.migrate(copy, settings: settings.withoutVFS)
        let after = try StoreFileFingerprint.lines(copy)
        guard after != before else { throw HarnessError("the migration left the store as it was") }
        return Baseline(url: url, settings: settings, before: before, after: after)
    }

    /// Adds the store at `url` with the next model version and automatic migration, then
    /// removes it.
    static func migrate(_ url: URL, settings: StoreSettings) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: BankModel.makeNext(), name: "migration")
        let options = settings.options.merging(BankModel.migrationOptions) { _, new in new }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        try coordinator.remove(store)
    }

    /// Migrates once with the fault armed at K; returns whether the fault fired.
    private func runOnce(_ baseline: Baseline, fault: FaultSweep.Fault, mode: FaultVFS.Mode, k: Int, label: String, figures: inout Figures, details: inout DetailLog) -> Bool {
        let vfs = configuration.vfs
        let url = configuration.directory.appendingPathComponent("migration-run.sqlite")
        defer { removeStore(url) }
        do {
            try BatchFaultSweep.copyStore(baseline.url, to: url)
        } catch {
            figures.unexpectedFailures += 1
            details.add("\(label): cannot copy the baseline: \(error)")
            return false
        }
        vfs.disarm()
        var settings = baseline.settings
        settings.vfsName = vfs.name
        let fired: Bool
        vfs.arm(fault.kind, at: k, mode: mode, errorCode: fault.errorCode)
        do {
            try Self.migrate(url, settings: settings)
            fired = vfs.fired > 0
            vfs.disarm()
            expect(after: true, url, baseline, "after the migration", label: label, figures: &figures, details: &details)
        } catch {
            fired = vfs.fired > 0
            vfs.disarm()
            guard fired else {
                figures.unexpectedFailures += 1
                details.add("\(label): the migration failed with no fault injected: \(error)")
                return false
            }
            figures.failedMigrations += 1
            if let problem = Self.errorProblem(error, injected: fault.errorCode) {
                figures.wrongErrors += 1
                details.add("\(label): \(problem)")
            }
            checkCrashImage(url, baseline: baseline, walSyncAmbiguity: fault.kind == .sync && baseline.settings.journal == .wal, label: label, figures: &figures, details: &details)
            expect(after: false, url, baseline, "right after the failed migration", label: label, figures: &figures, details: &details)
            do {
                try Self.migrate(url, settings: baseline.settings)
                expect(after: true, url, baseline, "after migrating again", label: label, figures: &figures, details: &details)
            } catch {
                figures.retryFailures += 1
                details.add("\(label): migrating again after the fault cleared failed: \(error)")
            }
        }
        if vfs.openFiles != 0 {
            figures.leakedFiles += 1
            details.add("\(label): \(vfs.openFiles) file(s) still open through the VFS after the store was removed")
        }
        return fired
    }

    /// Why `error` is not what a faulted migration must throw (a `StrataError` carrying the
    /// injected SQLite code), or nil when it is.
    static func errorProblem(_ error: any Error, injected: Int32) -> String? {
        guard let strata = error as? StrataError else { return "the migration threw \(type(of: error)), not a StrataError: \(error)" }
        guard let code = strata.sqliteCode else { return "the StrataError has no SQLite code: \(strata)" }
        guard code == injected & 0xFF else {
            return "the StrataError carries SQLite code \(strata.sqliteExtendedCode ?? code), the fault injected \(injected): \(strata.message)"
        }
        return nil
    }

    /// Counts a store that is not in the expected state.
    private func expect(after: Bool, _ url: URL, _ baseline: Baseline, _ when: String, label: String, figures: inout Figures, details: inout DetailLog) {
        let found: [String]
        do {
            found = try StoreFileFingerprint.lines(url)
        } catch {
            figures.partialStores += 1
            details.add("\(label): \(when), the store cannot be read: \(error)")
            return
        }
        let expected = after ? baseline.after : baseline.before
        if found == expected { return }
        if !after && found == baseline.after {
            figures.failedButMigrated += 1
            details.add("\(label): \(when), the store is migrated")
        } else {
            figures.partialStores += 1
            details.add("\(label): \(when): \(StoreFileFingerprint.difference(found, expected))")
        }
    }

    /// Copies the files as they are now (a crash right after the failure) and checks what
    /// recovery makes of them: the store before the migration.
    private func checkCrashImage(_ url: URL, baseline: Baseline, walSyncAmbiguity: Bool, label: String, figures: inout Figures, details: inout DetailLog) {
        let image = configuration.directory.appendingPathComponent("migration-image.sqlite")
        defer { removeStore(image) }
        removeStore(image)
        for suffix in ["", "-wal", "-journal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try? FileManager.default.copyItem(atPath: url.path + suffix, toPath: image.path + suffix)
        }
        do {
            let found = try StoreFileFingerprint.lines(image)
            if found == baseline.before { return }
            if found == baseline.after {
                if walSyncAmbiguity {
                    figures.ambiguousAfterCrash += 1
                } else {
                    figures.failedButMigratedAfterCrash += 1
                    details.add("\(label): the migration failed, but a copy of the files taken right after the failure holds it")
                }
                return
            }
            figures.partialStores += 1
            details.add("\(label): a copy of the files taken right after the failure: \(StoreFileFingerprint.difference(found, baseline.before))")
        } catch {
            figures.partialStores += 1
            details.add("\(label): a copy of the files taken right after the failure cannot be read: \(error)")
        }
    }
}
