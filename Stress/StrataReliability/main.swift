import Foundation
import ReliabilityKit
import StrataProgress

// StrataReliability: Strata's reliability harness (docs/reliability.md).
//
//   quick | full            every part, with the summary figures (CI runs `quick`)
//   crash | faults | batch-faults | migration-faults | migration-crash | disk | processes | controls
//   | external | postgresql one part (postgresql: the server in STRATA_TEST_POSTGRESQL_URL or --url,
//                           restarted with scripts/postgres-test-server.sh restart)
//   bank-child | pg-bank-child | pg-exit-child | counter-worker | lock-holder | history-writer | migrate-child | external-child
//                           the child processes the parts (and tests) start
//   create-store | check    make a bank store / check one by hand
//
// Options: --seed N (default 1), --dir PATH (scratch folder), --kills N, --seconds S; postgresql:
// --processes N, --restarts N (0: no server restart), --exits N (0: no exits while connecting), --url URL.

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
let command = arguments.positional.first ?? "help"
let seed = arguments.uint64("seed", 1)

/// A scratch folder for one command, under --dir or the temporary directory.
func scratch(_ name: String) -> URL {
    URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-\(name)-\(getpid())")
}

/// Prints a part's report, removes its folder, exits with its verdict.
func finish(_ reports: [PartReport], removing directory: URL) -> Never {
    for line in reports.flatMap(\.lines) { ProgressConsole.printLine(line, to: .standardOutput) }
    try? FileManager.default.removeItem(at: directory)
    exit(reports.allSatisfy(\.passes) ? 0 : 1)
}

switch command {
case "quick", "full":
    var run = ReliabilityRun(level: command == "quick" ? .quick : .full, seed: seed, executable: HarnessExecutable.current, directory: scratch("reliability"))
    run.kills = arguments.string("kills").flatMap { Int($0) }
    run.processSeconds = arguments.string("seconds").flatMap { Double($0) }
    exit(run.run { ProgressConsole.printLine($0, to: .standardOutput) } ? 0 : 1)
case "crash":
    let directory = scratch("crash")
    var configuration = CrashLoop.Configuration(executable: HarnessExecutable.current, directory: directory, kills: arguments.int("kills", 100), seed: seed)
    configuration.killsPerStore = arguments.int("kills-per-store", 25)
    finish([CrashLoop(configuration).run()], removing: directory)
case "faults":
    guard let vfs = FaultVFS.register() else {
        print("cannot register the fault VFS")
        exit(1)
    }
    let directory = scratch("faults")
    var configuration = FaultSweep.Configuration(directory: directory, seed: seed, vfs: vfs)
    if arguments.flag("quick") {
        configuration.settings = [StoreSettings(journal: .wal), StoreSettings(journal: .delete, synchronous: "FULL")]
        configuration.routes = [.plain, .chain, .audited]
    }
    if let route = arguments.string("route").flatMap(SaveRecipe.Route.init(rawValue:)) { configuration.routes = [route] }
    finish([FaultSweep(configuration).run()], removing: directory)
case "batch-faults":
    guard let vfs = FaultVFS.register() else {
        print("cannot register the fault VFS")
        exit(1)
    }
    let directory = scratch("batch-faults")
    var configuration = BatchFaultSweep.Configuration(directory: directory, seed: seed, vfs: vfs)
    if let kind = arguments.string("kind").flatMap(BatchFaultSweep.Kind.init(rawValue:)) { configuration.kinds = [kind] }
    finish([BatchFaultSweep(configuration).run()], removing: directory)
case "migration-faults":
    guard let vfs = FaultVFS.register() else {
        print("cannot register the fault VFS")
        exit(1)
    }
    let directory = scratch("migration-faults")
    finish([MigrationFaultSweep(MigrationFaultSweep.Configuration(directory: directory, seed: seed, vfs: vfs)).run()], removing: directory)
case "migration-crash":
    let directory = scratch("migration-crash")
    finish(
        [MigrationCrashLoop(MigrationCrashLoop.Configuration(executable: HarnessExecutable.current, directory: directory, kills: arguments.int("kills", 100), seed: seed)).run()], removing: directory)
case "migrate-child":
    exit(MigrateChild.run(arguments))
case "disk":
    let directory = scratch("disk")
    finish([DiskFull(directory: directory, seed: seed).run(), ReadOnlyMedia(directory: directory, seed: seed).run()], removing: directory)
case "processes":
    let directory = scratch("processes")
    var configuration = MultiProcess.Configuration(executable: HarnessExecutable.current, directory: directory, seed: seed)
    configuration.seconds = arguments.double("seconds", 5)
    finish([MultiProcess(configuration).run()], removing: directory)
case "controls":
    let directory = scratch("controls")
    finish([NegativeControls(executable: HarnessExecutable.current, directory: directory, seed: seed).run()], removing: directory)
case "external":
    let directory = scratch("external")
    finish([ExternalBlobCrash(ExternalBlobCrash.Configuration(executable: HarnessExecutable.current, directory: directory, kills: arguments.int("kills", 20), seed: seed)).run()], removing: directory)
case "postgresql":
    let directory = scratch("postgresql")
    let report: PartReport
    if let url = arguments.string("url") ?? ReliabilityRun.postgreSQLURL {
        var configuration = PostgreSQLProcesses.Configuration(executable: HarnessExecutable.current, url: url, directory: directory, seed: seed)
        configuration.processes = arguments.int("processes", 3)
        configuration.bankSeconds = arguments.double("seconds", 5)
        configuration.kills = arguments.int("kills", 30)
        configuration.restarts = arguments.int("restarts", 1)
        configuration.exits = arguments.int("exits", 20)
        configuration.restartCommand = PostgreSQLProcesses.serverRestartCommand(executable: HarnessExecutable.current)
        report = PostgreSQLProcesses(configuration).run()
    } else {
        report = PartReport(name: PostgreSQLProcesses.name, skipped: ReliabilityRun.postgreSQLMissing)
    }
    finish([report], removing: directory)
case "pg-bank-child":
    exit(PostgreSQLBankChild.run(arguments))
case "pg-exit-child":
    exit(PostgreSQLExitChild.run(arguments))
case "bank-child":
    exit(BankChild.run(arguments))
case "external-child":
    exit(ExternalBlobCrash.runChild(arguments))
case "counter-worker":
    exit(CounterWorker.run(arguments))
case "lock-holder":
    exit(LockHolder.run(arguments))
case "history-writer":
    exit(HistoryExchange.runChild(arguments))
case "create-store":
    do {
        try BankWorkload.createStore(at: URL(fileURLWithPath: arguments.string("store") ?? "bank.sqlite"), settings: arguments.storeSettings(), accounts: arguments.int("accounts", 32))
    } catch {
        print("create-store: \(error)")
        exit(1)
    }
case "check":
    let url = URL(fileURLWithPath: arguments.string("store") ?? "bank.sqlite")
    let check = BankChecker.check(url, settings: arguments.storeSettings(), book: arguments.recipeBook(), acknowledged: Int64(arguments.int("ack", 0)))
    print(check)
    exit(check.isConsistent ? 0 : 1)
default:
    print("usage: StrataReliability quick|full|crash|faults|disk|processes|controls|external|postgresql [--seed N] [--dir PATH] [--kills N] [--seconds S]")
    exit(command == "help" ? 0 : 2)
}
