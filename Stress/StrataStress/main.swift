// StrataStress: a seeded, time-bounded concurrent bank workload on 16 contexts (roots,
// children, grandchildren, a main-queue context and private ones) that checks the bank's
// invariants after root saves and at the end. `make stress` (60 s), `make stress-tsan`.
// With --large, the large-data mode instead (`make stress-large`, docs/stress.md).
//
// The workload runs on worker threads; the main thread runs `RunLoop.main` meanwhile, so the
// main-queue context's blocks run (on the main thread) — as they would in an app.
import Foundation
import StrataProgress
import StrataStressKit
import Synchronization

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch let error as OptionError {
    if let message = error.message { print("StrataStress: \(message)") }
    print(Options.usage)
    exit(error.message == nil ? 0 : 2)
}

/// Lines printed by worker threads go out whole and in order, around the progress line on a
/// terminal (Sources/StrataProgress/ProgressConsole.swift).
@Sendable func say(_ line: String) {
    ProgressConsole.printLine(line, to: .standardOutput)
}

let finished = Atomic<Int>(-1)
let runner: Thread
if options.large {
    var configuration = LargeRun.Configuration(seed: options.seed, seconds: options.seconds)
    if let rows = options.rows { configuration.rows = rows }
    configuration.negativeControl = options.negativeControl
    configuration.readerStaleness = options.staleness
    say(
        "StrataStress --large: seed \(options.seed), \(Int(options.seconds)) s, \(configuration.rows) records, \(LargeWorkload.roles.count) workers (\(LargeWorkload.roles.map(\.rawValue).joined(separator: ", ")))"
    )
    say("  replay with: StrataStress --large --seed \(options.seed) --seconds \(Int(options.seconds)) --rows \(configuration.rows)")
    let large = LargeRun(configuration: configuration)
    runner = Thread {
        let report = large.run(log: say)
        say(report.text)
        finished.store(report.passed ? 0 : 1, ordering: .sequentiallyConsistent)
    }
} else {
    say("StrataStress: seed \(options.seed), \(Int(options.seconds)) s, \(options.threads) worker threads, 16 contexts, \(options.accounts) accounts")
    say("  replay with: StrataStress --seed \(options.seed) --seconds \(Int(options.seconds))")
    var configuration = StressRun.Configuration(seed: options.seed, seconds: options.seconds)
    configuration.threads = options.threads
    configuration.initialAccounts = options.accounts
    configuration.contexts = options.contexts
    configuration.negativeControl = options.negativeControl
    if options.traceOverhead { configuration.traceOverheadWindow = 0.5 }
    let stress = StressRun(configuration: configuration)
    runner = Thread {
        let report = stress.run(log: say)
        say(report.text)
        finished.store(report.passed ? 0 : 1, ordering: .sequentiallyConsistent)
    }
}
runner.stackSize = 8 << 20
runner.start()

// Service the main queue until the run is over.
while finished.load(ordering: .sequentiallyConsistent) < 0 {
    _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
}
exit(Int32(finished.load(ordering: .sequentiallyConsistent)))
