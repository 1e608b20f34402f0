import Foundation
import ReliabilityKit

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
let command = arguments.positional.first ?? "help"
switch command {
case "bank-child":
    exit(BankChild.run(arguments))
case "crash":
    let directory = URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-crash-\(getpid())")
    var configuration = CrashLoop.Configuration(executable: HarnessExecutable.current, directory: directory, kills: arguments.int("kills", 20), seed: arguments.uint64("seed", 1))
    configuration.killsPerStore = arguments.int("kills-per-store", 25)
    let report = CrashLoop(configuration).run()
    report.lines.forEach { print($0) }
    try? FileManager.default.removeItem(at: directory)
    exit(report.passes ? 0 : 1)
case "faults":
    guard let vfs = FaultVFS.register() else { print("cannot register the fault VFS"); exit(1) }
    let directory = URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-faults-\(getpid())")
    var configuration = FaultSweep.Configuration(directory: directory, seed: arguments.uint64("seed", 1), vfs: vfs)
    if arguments.flag("quick") {
        configuration.settings = [StoreSettings(journal: .wal), StoreSettings(journal: .delete)]
        configuration.routes = [.plain]
    }
    let report = FaultSweep(configuration).run()
    report.lines.forEach { print($0) }
    try? FileManager.default.removeItem(at: directory)
    exit(report.passes ? 0 : 1)
case "counter-worker":
    exit(CounterWorker.run(arguments))
case "lock-holder":
    exit(LockHolder.run(arguments))
case "processes":
    let directory = URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-processes-\(getpid())")
    var configuration = MultiProcess.Configuration(executable: HarnessExecutable.current, directory: directory, seed: arguments.uint64("seed", 1))
    configuration.seconds = arguments.double("seconds", 5)
    let report = MultiProcess(configuration).run()
    report.lines.forEach { print($0) }
    try? FileManager.default.removeItem(at: directory)
    exit(report.passes ? 0 : 1)
case "disk":
    let directory = URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-disk-\(getpid())")
    let full = DiskFull(directory: directory, seed: arguments.uint64("seed", 1)).run()
    let readOnly = ReadOnlyMedia(directory: directory, seed: arguments.uint64("seed", 1)).run()
    (full.lines + readOnly.lines).forEach { print($0) }
    try? FileManager.default.removeItem(at: directory)
    exit(full.passes && readOnly.passes ? 0 : 1)
case "controls":
    let directory = URL(fileURLWithPath: arguments.string("dir") ?? NSTemporaryDirectory()).appendingPathComponent("strata-controls-\(getpid())")
    let report = NegativeControls(executable: HarnessExecutable.current, directory: directory, seed: arguments.uint64("seed", 1)).run()
    report.lines.forEach { print($0) }
    try? FileManager.default.removeItem(at: directory)
    exit(report.passes ? 0 : 1)
case "create-store":
    do {
        try BankWorkload.createStore(at: URL(fileURLWithPath: arguments.string("store") ?? ""), settings: arguments.storeSettings(), accounts: arguments.int("accounts", 32))
    } catch {
        print("create-store: \(error)")
        exit(1)
    }
case "check":
    let start = Date()
    let url = URL(fileURLWithPath: arguments.string("store") ?? "")
    let check = BankChecker.check(url, settings: arguments.storeSettings(), book: arguments.recipeBook(), acknowledged: Int64(arguments.int("ack", 0)))
    print(check, Date().timeIntervalSince(start))
default:
    print("usage: StrataReliability quick|full|crash|faults|disk|processes|controls [options]")
    exit(command == "help" ? 0 : 2)
}
