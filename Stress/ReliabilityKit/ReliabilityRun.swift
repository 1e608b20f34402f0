import Foundation

/// The whole harness in one run: `quick` (CI, a couple of minutes) or `full` (`make
/// reliability`: at least 1,000 kills and every fault point).
public struct ReliabilityRun {
    /// How much to do.
    public enum Level: String, Sendable {
        case quick, full
    }

    /// Quick or full.
    public var level: Level
    /// The seed of every part.
    public var seed: UInt64
    /// The `StrataReliability` executable (children).
    public var executable: String
    /// A scratch folder (removed at the end).
    public var directory: URL
    /// Kills in the crash loop (default: 60 quick, 1,000 full).
    public var kills: Int?
    /// Seconds of each several-process contention phase (default: 3 quick, 20 full).
    public var processSeconds: Double?

    /// The PostgreSQL server of the "postgresql processes" part (`STRATA_TEST_POSTGRESQL_URL`),
    /// nil when not set.
    public static var postgreSQLURL: String? {
        ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRESQL_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Why the "postgresql processes" part is skipped without a server.
    public static let postgreSQLMissing =
        "STRATA_TEST_POSTGRESQL_URL is not set (start a server: export STRATA_TEST_POSTGRESQL_URL=$(scripts/postgres-test-server.sh start))"

    /// Creates a run.
    public init(level: Level, seed: UInt64, executable: String, directory: URL) {
        self.level = level
        self.seed = seed
        self.executable = executable
        self.directory = directory
    }

    /// Runs every part, prints each report and the summary; returns whether everything passed.
    public func run(print output: (String) -> Void) -> Bool {
        let started = Date()
        let quick = level == .quick
        output("Strata reliability harness — \(level.rawValue) run, seed \(seed)")
        var reports: [PartReport] = []
        func part(_ name: String, _ body: () -> PartReport) {
            Progress.note("… \(name)")
            let report = body()
            report.lines.forEach(output)
            reports.append(report)
        }
        part("crash loop") {
            var configuration = CrashLoop.Configuration(
                executable: executable, directory: directory.appendingPathComponent("crash"), kills: kills ?? (quick ? 60 : 1_000), seed: seed)
            configuration.killsPerStore = quick ? 15 : 25
            configuration.deadline = quick ? Date().addingTimeInterval(90) : nil
            return CrashLoop(configuration).run()
        }
        part("external binary data crash loop") {
            ExternalBlobCrash(
                ExternalBlobCrash.Configuration(executable: executable, directory: directory.appendingPathComponent("external"), kills: quick ? 20 : 200, seed: seed)
            ).run()
        }
        part("fault sweep") {
            guard let vfs = FaultVFS.register() else {
                return PartReport(name: "I/O-fault injection", figures: [Figure("cannot register the fault VFS", 1, mustBeZero: true)])
            }
            var configuration = FaultSweep.Configuration(directory: directory.appendingPathComponent("faults"), seed: seed, vfs: vfs)
            if quick {
                configuration.settings = [StoreSettings(journal: .wal), StoreSettings(journal: .delete, synchronous: "FULL")]
                configuration.routes = [.plain, .chain, .audited]
                configuration.deadline = Date().addingTimeInterval(120)
            }
            return FaultSweep(configuration).run()
        }
        part("batch fault sweep") {
            guard let vfs = FaultVFS.register() else {
                return PartReport(name: "I/O-fault injection into batch requests", figures: [Figure("cannot register the fault VFS", 1, mustBeZero: true)])
            }
            var configuration = BatchFaultSweep.Configuration(directory: directory.appendingPathComponent("batch-faults"), seed: seed, vfs: vfs)
            if quick { configuration.deadline = Date().addingTimeInterval(60) }
            return BatchFaultSweep(configuration).run()
        }
        part("migration fault sweep") {
            guard let vfs = FaultVFS.register() else {
                return PartReport(name: "I/O-fault injection into migration", figures: [Figure("cannot register the fault VFS", 1, mustBeZero: true)])
            }
            var configuration = MigrationFaultSweep.Configuration(directory: directory.appendingPathComponent("migration-faults"), seed: seed, vfs: vfs)
            if quick {
                configuration.settings = [StoreSettings(journal: .wal), StoreSettings(journal: .delete, synchronous: "FULL")]
                configuration.deadline = Date().addingTimeInterval(60)
            }
            return MigrationFaultSweep(configuration).run()
        }
        part("migration crash loop") {
            var configuration = MigrationCrashLoop.Configuration(
                executable: executable, directory: directory.appendingPathComponent("migration-crash"), kills: quick ? 30 : 300, seed: seed)
            if quick {
                configuration.accounts = 2_000
                configuration.deadline = Date().addingTimeInterval(60)
            }
            return MigrationCrashLoop(configuration).run()
        }
        part("disk full") { DiskFull(directory: directory.appendingPathComponent("disk"), seed: seed).run() }
        part("read-only media") { ReadOnlyMedia(directory: directory.appendingPathComponent("disk"), seed: seed).run() }
        part("several processes") {
            var configuration = MultiProcess.Configuration(executable: executable, directory: directory.appendingPathComponent("processes"), seed: seed)
            configuration.seconds = processSeconds ?? (quick ? 3 : 20)
            return MultiProcess(configuration).run()
        }
        part("postgresql processes") {
            guard let url = Self.postgreSQLURL else { return PartReport(name: PostgreSQLProcesses.name, skipped: Self.postgreSQLMissing) }
            var configuration = PostgreSQLProcesses.Configuration(executable: executable, url: url, directory: directory.appendingPathComponent("postgresql"), seed: seed)
            configuration.bankSeconds = processSeconds ?? (quick ? 4 : 20)
            configuration.kills = quick ? 15 : 200
            configuration.restarts = quick ? 1 : 3
            configuration.exits = quick ? 20 : 200
            configuration.restartCommand = PostgreSQLProcesses.serverRestartCommand(executable: executable)
            configuration.deadline = Date().addingTimeInterval(quick ? 30 : 300)
            return PostgreSQLProcesses(configuration).run()
        }
        part("negative controls") {
            NegativeControls(executable: executable, directory: directory.appendingPathComponent("controls"), seed: seed).run()
        }
        try? FileManager.default.removeItem(at: directory)
        let passed = reports.allSatisfy(\.passes)
        output("")
        output("RELIABILITY SUMMARY (\(level.rawValue), seed \(seed), \(String(format: "%.0f", Date().timeIntervalSince(started))) s)")
        func value(_ part: String, _ figure: String) -> String {
            guard let report = reports.first(where: { $0.name.hasPrefix(part) }) else { return "-" }
            if report.skipped != nil { return "SKIP" }
            return report.figures.first(where: { $0.name == figure }).map { String($0.value) } ?? "-"
        }
        let summary: [(String, String, Bool)] = [
            ("kills", value("SIGKILL", "kills"), false),
            ("corrupt stores", value("SIGKILL", "corrupt stores"), true),
            ("acknowledged saves lost", value("SIGKILL", "acknowledged saves lost"), true),
            ("hot journals after a kill", value("SIGKILL", "hot journals found after a kill"), false),
            ("saves committed but not acknowledged", value("SIGKILL", "saves committed but not acknowledged"), false),
            ("fault points swept", value("I/O-fault", "fault points swept (runs where the fault fired)"), false),
            ("inconsistent stores after a fault", value("I/O-fault", "inconsistent stores"), true),
            ("failed saves found committed", value("I/O-fault", "failed saves found committed"), true),
            ("batch fault points swept", value("I/O-fault injection into batch", "fault points swept in batch requests"), false),
            ("batch stores neither before nor after", value("I/O-fault injection into batch", "stores not exactly before or after the request"), true),
            ("migration fault points swept", value("I/O-fault injection into migration", "fault points swept in migrations"), false),
            ("migrated stores neither before nor after", value("I/O-fault injection into migration", "stores neither before nor after the migration"), true),
            ("kills during migration", value("SIGKILL loop over migration", "kills during migration"), false),
            ("stores half-migrated after a kill", value("SIGKILL loop over migration", "stores neither before nor after"), true),
            ("disk-full saves reported as SQLITE_FULL", value("disk full", "saves failed with StrataError + SQLITE_FULL"), false),
            ("read-only media: unclear errors", value("read-only", "unclear errors"), true),
            ("lost updates across processes", value("several processes", "lost updates"), true),
            ("SQLITE_BUSY not surfaced as 134090", value("several processes", "SQLITE_BUSY surfaced without 134090"), true),
            ("postgresql: transfers acknowledged", value("postgresql", "transfers acknowledged"), false),
            ("postgresql: acknowledged transfers lost", value("postgresql", "acknowledged transfers lost"), true),
            ("postgresql: money not conserved", value("postgresql", "money not conserved"), true),
            ("postgresql: cross-process merge (ms)", value("postgresql", "longest merge of other processes' changes (ms)"), false),
            ("postgresql: longest stall (ms)", value("postgresql", "longest stall of a child (ms)"), false),
            (
                "negative controls undetected", String(reports.first { $0.name.hasPrefix("negative") }.map { $0.figures.filter { $0.name.hasSuffix("undetected") }.reduce(0) { $0 + $1.value } } ?? -1),
                true
            ),
        ]
        for (name, number, mustBeZero) in summary {
            output("  \(name.padding(toLength: 42, withPad: " ", startingAt: 0)) \(number.leftPadded(to: 9))\(mustBeZero ? "  (must be 0)" : "")")
        }
        for report in reports where report.skipped != nil {
            output("  SKIP \(report.name): \(report.skipped ?? "")")
        }
        output("RESULT: \(passed ? "PASS" : "FAIL")")
        return passed
    }
}
