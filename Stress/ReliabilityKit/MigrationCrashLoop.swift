import Foundation
import Strata
import StrataProgress
import StrataTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The SIGKILL loop over migration: a child process adds a bank store of the first model
/// version with the next version and automatic migration (`migrate-child`); the parent kills it
/// at a random moment (a timer, or an exact write/sync/truncate/delete through the fault VFS)
/// and checks the file: it must be exactly the store before the migration or exactly the
/// migrated store, never anything else, and adding it again must finish the migration.
public struct MigrationCrashLoop {
    /// What to run.
    public struct Configuration: Sendable {
        /// The `StrataReliability` executable (it runs `migrate-child`).
        public var executable: String
        /// A folder for the stores.
        public var directory: URL
        /// How many kills.
        public var kills: Int
        /// The run's seed.
        public var seed: UInt64
        /// Journal modes, taken in turn.
        public var journals: [JournalMode] = [.wal, .delete]
        /// Also migrate through a staged migration whose custom stage works on a copy and swaps
        /// it in (`StagedMigrationManager`; killed by the timer only: its copy is not opened
        /// through the fault VFS).
        public var includesStaged = true
        /// Accounts in the store (enough rows that the migration takes a while).
        public var accounts = 4_000
        /// Saves in the store before the migration.
        public var saves = 12
        /// The share of kills made at an exact I/O operation (the rest by a timer).
        public var exactKillShare = 0.6
        /// Stop early after this moment.
        public var deadline: Date?

        /// Creates a configuration.
        public init(executable: String, directory: URL, kills: Int, seed: UInt64) {
            self.executable = executable
            self.directory = directory
            self.kills = kills
            self.seed = seed
        }
    }

    /// The configuration.
    public let configuration: Configuration

    /// Creates a loop.
    public init(_ configuration: Configuration) { self.configuration = configuration }

    private struct Baseline {
        var url: URL
        var journal: JournalMode
        var staged: Bool
        var before: [String]
        var after: [String]
        /// How long the child takes to migrate without a kill (seconds).
        var duration: TimeInterval
        /// How many I/O operations of each kind the migration does.
        var operations: Int
    }

    /// Runs the loop and returns its report.
    public func run() -> PartReport {
        let started = Date()
        var random = SeededRandom(seed: configuration.seed, stream: 0x316A)
        var details = DetailLog()
        var kills = 0
        var exactKills = 0
        var stagedKills = 0
        var killedBefore = 0
        var killedAfter = 0
        var finishedFirst = 0
        var partial = 0
        var unfinishable = 0
        var childFailures = 0
        try? FileManager.default.createDirectory(at: configuration.directory, withIntermediateDirectories: true)
        var baselines: [Baseline] = []
        for staged in configuration.includesStaged ? [false, true] : [false] {
            for journal in configuration.journals {
                do {
                    baselines.append(try makeBaseline(journal: journal, staged: staged))
                } catch {
                    details.add("cannot make the \(journal)\(staged ? " staged" : "") baseline: \(error)")
                    childFailures += 1
                }
            }
        }
        defer {
            for baseline in baselines { removeStore(baseline.url) }
        }
        // A status line on a terminal only; off one the part prints its report at the end.
        let meter = ProgressMeter(lineInterval: nil)
        defer { meter.finish() }
        if !baselines.isEmpty {
            for index in 0..<configuration.kills {
                meter.update(
                    ProgressStatus(
                        label: "migration crash loop", done: index, total: configuration.kills, unit: "runs", checks: kills,
                        detail: "\(stagedKills) kills in a staged stage, \(partial) stores between versions",
                        elapsed: Date().timeIntervalSince(started), secondsLeft: configuration.deadline.map { $0.timeIntervalSinceNow }))
                if let deadline = configuration.deadline, Date() > deadline { break }
                let baseline = baselines[index % baselines.count]
                let url = configuration.directory.appendingPathComponent("migrating.sqlite")
                do {
                    try BatchFaultSweep.copyStore(baseline.url, to: url)
                } catch {
                    details.add("cannot copy the baseline: \(error)")
                    childFailures += 1
                    break
                }
                var arguments = ["migrate-child", "--store", url.path, "--journal", baseline.journal.rawValue] + (baseline.staged ? ["--staged"] : [])
                let exact = !baseline.staged && Double(random.next() % 1_000) / 1_000 < configuration.exactKillShare
                var delay = Double(random.next() % 1_000) / 1_000 * baseline.duration * 1.2
                if exact {
                    let kinds: [FaultVFS.Kind] = [.write, .write, .write, .sync, .truncate, .delete]
                    let kind = kinds[Int(random.next() % UInt64(kinds.count))]
                    let k = Int(random.next() % UInt64(kind == .write ? max(baseline.operations, 1) : 12))
                    arguments += ["--kill-at", "\(kind.rawValue):any:\(k)"]
                    delay = baseline.duration * 4 + 1
                }
                let child: ChildProcess
                do {
                    child = try ChildProcess(
                        executable: configuration.executable, arguments: arguments, stderrPath: configuration.directory.appendingPathComponent("migrate-child.stderr").path)
                } catch {
                    details.add("cannot start the child: \(error)")
                    childFailures += 1
                    break
                }
                let endedEarly = child.sleep(delay)
                let termination = child.killAndReap()
                let label = "kill \(index) (\(baseline.journal)\(baseline.staged ? ", staged" : ""), \(exact ? "exact" : "timer"))"
                switch termination {
                case .signaled(SIGKILL):
                    kills += 1
                    if exact && endedEarly { exactKills += 1 }
                    if baseline.staged { stagedKills += 1 }
                case .exited(0):
                    finishedFirst += 1
                default:
                    childFailures += 1
                    details.add("\(label): the child ended with \(termination): \(child.errorOutput.suffix(400))")
                }
                do {
                    let found = try StoreFileFingerprint.lines(url)
                    if found == baseline.before {
                        killedBefore += 1
                    } else if found == baseline.after {
                        killedAfter += 1
                    } else {
                        partial += 1
                        details.add("\(label): the store is neither before nor after the migration: \(StoreFileFingerprint.difference(found, baseline.after))")
                        continue
                    }
                    try MigrateChild.migrate(url, settings: StoreSettings(journal: baseline.journal), staged: baseline.staged)
                    if try StoreFileFingerprint.lines(url) != baseline.after {
                        unfinishable += 1
                        details.add("\(label): migrating again did not give the migrated store")
                    }
                    let leftovers = try FileManager.default.contentsOfDirectory(atPath: configuration.directory.path).filter { $0.hasPrefix(".strata-migration-") }
                    if !leftovers.isEmpty {
                        unfinishable += 1
                        details.add("\(label): a staged migration's workspace was left after the next migration: \(leftovers)")
                    }
                } catch {
                    unfinishable += 1
                    details.add("\(label): the store cannot be read or migrated after the kill: \(error)")
                }
            }
        }
        removeStore(configuration.directory.appendingPathComponent("migrating.sqlite"))
        return PartReport(
            name: "SIGKILL loop over migration",
            figures: [
                Figure("kills during migration", kills, atLeast: 1),
                Figure("  of which at an exact I/O operation", exactKills),
                Figure("  of which in a staged migration's custom stage", stagedKills, atLeast: configuration.includesStaged ? 1 : nil),
                Figure("stores found before the migration", killedBefore),
                Figure("stores found migrated", killedAfter),
                Figure("children that finished before the kill", finishedFirst),
                Figure("stores neither before nor after", partial, mustBeZero: true),
                Figure("stores the next open could not migrate", unfinishable, mustBeZero: true),
                Figure("child failures (harness)", childFailures, mustBeZero: true),
            ],
            details: details.items, seconds: Date().timeIntervalSince(started))
    }

    /// A bank store at the first version, its fingerprints before and after, and how long and
    /// how many writes a migration of it takes.
    private func makeBaseline(journal: JournalMode, staged: Bool) throws -> Baseline {
        let url = configuration.directory.appendingPathComponent("migration-crash-\(journal)\(staged ? "-staged" : "").sqlite")
        removeStore(url)
        let settings = StoreSettings(journal: journal)
        let book = RecipeBook(seed: configuration.seed, accounts: configuration.accounts, route: .plain)
        try BankWorkload.createStore(at: url, settings: settings, accounts: configuration.accounts)
        try withExtendedLifetime(try BankStack(url: url, settings: settings)) { stack in
            let root = stack.newContext()
            for number in 1...Int64(configuration.saves) { try BankWorkload.save(book.recipe(number), root: root) }
            stack.close()
        }
        let before = try StoreFileFingerprint.lines(url)
        let copy = configuration.directory.appendingPathComponent("migration-crash-expected.sqlite")
        try BatchFaultSweep.copyStore(url, to: copy)
        defer { removeStore(copy) }
        guard let vfs = FaultVFS.register() else { throw HarnessError("cannot register the fault VFS") }
        vfs.disarm()
        var counted = settings
        counted.vfsName = vfs.name
        vfs.resetCounters()
        let start = Date()
        try MigrateChild.migrate(copy, settings: counted, staged: staged)
        let duration = Date().timeIntervalSince(start)
        let operations = vfs.count(.write)
        let after = try StoreFileFingerprint.lines(copy)
        guard after != before else { throw HarnessError("the migration left the store as it was") }
        return Baseline(url: url, journal: journal, staged: staged, before: before, after: after, duration: max(duration, 0.01), operations: operations)
    }
}

/// The child of ``MigrationCrashLoop``: adds the store with the next model version and
/// automatic migration (or, with `--staged`, a staged migration with one custom stage), through
/// the fault VFS (armed to SIGKILL the process at `--kill-at`), prints `MIGRATED` and exits 0;
/// exits 3 when the migration fails.
public enum MigrateChild {
    /// Migrates the bank store at `url` to the next version: automatic lightweight migration,
    /// or a staged migration whose custom stage's did-handler writes every account's `openedAt`.
    public static func migrate(_ url: URL, settings: StoreSettings, staged: Bool) throws {
        guard staged else { return try MigrationFaultSweep.migrate(url, settings: settings) }
        let first = BankModel.make()
        let next = BankModel.makeNext()
        let stage = CustomMigrationStage(
            migratingFrom: ManagedObjectModelReference(model: first, versionChecksum: first.versionChecksum),
            to: ManagedObjectModelReference(model: next, versionChecksum: next.versionChecksum))
        stage.didMigrateHandler = { manager, _ in
            guard let context = manager.container?.newBackgroundContext() else { throw HarnessError("the stage has no container") }
            try context.performAndWait {
                for account in try context.fetch(FetchRequest<ManagedObject>(entityName: "Account")) {
                    account.setValue(Date(timeIntervalSince1970: 1_700_000_000), forKey: "openedAt")
                }
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: next, name: "staged migration")
        var options = settings.options
        options[PersistentStoreOption.stagedMigrationManager] = StagedMigrationManager([stage])
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        try coordinator.remove(store)
    }

    /// Runs the child; returns its exit code.
    public static func run(_ arguments: Arguments) -> Int32 {
        guard let path = arguments.string("store"), let vfs = FaultVFS.register() else {
            FileHandle.standardError.write(Data("migrate-child: --store is required and the fault VFS must register\n".utf8))
            return 2
        }
        if let killAt = arguments.string("kill-at"), !vfs.armKill(killAt) {
            FileHandle.standardError.write(Data("migrate-child: bad --kill-at \(killAt)\n".utf8))
            return 2
        }
        var settings = StoreSettings(journal: JournalMode(rawValue: arguments.string("journal") ?? "WAL") ?? .wal)
        settings.vfsName = vfs.name
        do {
            try migrate(URL(fileURLWithPath: path), settings: settings, staged: arguments.flag("staged"))
            StandardOutput.writeLine("MIGRATED")
            return 0
        } catch {
            FileHandle.standardError.write(Data("migrate-child: \(error)\n".utf8))
            return 3
        }
    }
}
