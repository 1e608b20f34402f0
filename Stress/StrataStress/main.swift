// StrataStress: a seeded, time-bounded concurrent bank workload on 16 contexts (roots,
// children, grandchildren, a main-queue context and private ones) that checks the bank's
// invariants after root saves and at the end. `make stress` (60 s), `make stress-tsan`.
//
// The workload runs on worker threads; the main thread runs `RunLoop.main` meanwhile, so the
// main-queue context's blocks run (on the main thread) — as they would in an app.
import Foundation
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

/// Lines printed by worker threads go out whole and in order.
let output = NSLock()
@Sendable func say(_ line: String) {
    output.withLock {
        print(line)
        fflush(nil)
    }
}

say("StrataStress: seed \(options.seed), \(Int(options.seconds)) s, \(options.threads) worker threads, 16 contexts, \(options.accounts) accounts")
say("  replay with: StrataStress --seed \(options.seed) --seconds \(Int(options.seconds))")

let finished = Atomic<Int>(-1)
var configuration = StressRun.Configuration(seed: options.seed, seconds: options.seconds)
configuration.threads = options.threads
configuration.initialAccounts = options.accounts
configuration.contexts = options.contexts
configuration.negativeControl = options.negativeControl
let stress = StressRun(configuration: configuration)
let runner = Thread {
    let report = stress.run(log: say)
    say(report.text)
    finished.store(report.passed ? 0 : 1, ordering: .sequentiallyConsistent)
}
runner.stackSize = 8 << 20
runner.start()

// Service the main queue until the run is over.
while finished.load(ordering: .sequentiallyConsistent) < 0 {
    _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
}
exit(Int32(finished.load(ordering: .sequentiallyConsistent)))
