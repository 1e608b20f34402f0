import Foundation
import StrataStressKit

/// The command line of `StrataStress`.
struct Options {
    /// How long the workload runs (nil: the mode's default, see ``seconds``).
    var requestedSeconds: Double?
    /// `--quick`: the short run CI does.
    var quick = false
    /// `--large`: the large-data mode (a million-row store) instead of the bank workload.
    var large = false
    /// Records of the large store (nil: 1,000,000).
    var rows: Int?
    /// The large mode's readers' `stalenessInterval` (nil: the library's default).
    var staleness: Double?
    /// The seed (a fresh one when not given; always printed).
    var seed: UInt64 = SeededGenerator.freshSeed()
    /// Worker threads.
    var threads = 8
    /// Accounts the bank opens with.
    var accounts = 64
    /// The contexts the workers use (nil: all).
    var contexts: [Int]?
    /// `--trace-overhead`: switch a trace recording on and off every half second and report
    /// what it costs the workload.
    var traceOverhead = false
    /// Break one transfer in ten on purpose: the money checks must fail (exit status 1).
    var negativeControl = false

    /// How long the workload runs: `--seconds`, or 60 s (bank) / 120 s (large), or with
    /// `--quick` 20 s (bank) / 45 s (large).
    var seconds: Double {
        requestedSeconds ?? (large ? (quick ? 45 : 120) : (quick ? 20 : 60))
    }

    static let usage = """
        usage: StrataStress [--large [--rows R]] [--seconds N | --quick] [--seed S] [--threads T] [--accounts A] [--contexts I,J,…]
          --seconds N   run the workload N seconds (default 60; 120 with --large)
          --quick       20 seconds (45 with --large), for CI
          --large       the large-data mode (docs/stress.md): a store of --rows records built with raw
                        SQLite, readers paging, faulting and walking in batches while writers save and a
                        child pushes up; prints throughput, p50/p99 latency and peak memory
          --rows R      records of the large store (default 1000000)
          --staleness S the large mode's readers' stalenessInterval (default: the library's, never
                        expire); 0 reads every row from the store, to tell a stale row cache from a bad merge
          --seed S      replay the random choices of seed S (printed by every run)
          --threads T   worker threads (default 8)
          --accounts A  accounts the bank opens with (default 64)
          --contexts L  only these contexts do work (indexes 0…15, see BankTopology), to narrow a failure down
          --trace-overhead
                        switch a StrataTrace recording on and off every 0.5 s during the run and report
                        the workload's rate and CPU an operation with and without it (not with --large
                        or STRATA_TRACE)
          --negative-control
                        break one transfer in ten (credit without debit): the money checks must FAIL and
                        the run must exit 1 (`make stress-negative-control` expects exactly that)
        Exit status: 0 when every invariant held, 1 when one failed, 2 for a bad command line.
        """

    /// Parses `arguments` (without the program name); throws a message for bad input.
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw OptionError("\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seconds":
                guard let seconds = Double(try value(for: argument)), seconds > 0 else { throw OptionError("--seconds needs a positive number") }
                options.requestedSeconds = seconds
            case "--quick":
                options.quick = true
            case "--staleness":
                guard let staleness = Double(try value(for: argument)) else { throw OptionError("--staleness needs a number of seconds") }
                options.staleness = staleness
            case "--large":
                options.large = true
            case "--rows":
                guard let rows = Int(try value(for: argument)), (1_000...100_000_000).contains(rows) else { throw OptionError("--rows needs 1000…100000000") }
                options.rows = rows
            case "--seed":
                guard let seed = UInt64(try value(for: argument)) else { throw OptionError("--seed needs an unsigned integer") }
                options.seed = seed
            case "--threads":
                guard let threads = Int(try value(for: argument)), (1...64).contains(threads) else { throw OptionError("--threads needs 1…64") }
                options.threads = threads
            case "--accounts":
                guard let accounts = Int(try value(for: argument)), (8...100_000).contains(accounts) else { throw OptionError("--accounts needs 8…100000") }
                options.accounts = accounts
            case "--contexts":
                let list = try value(for: argument).split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard !list.isEmpty, list.allSatisfy({ $0.map { (0..<16).contains($0) } ?? false }) else { throw OptionError("--contexts needs indexes 0…15, comma-separated") }
                options.contexts = list.compactMap { $0 }
            case "--negative-control":
                options.negativeControl = true
            case "--trace-overhead":
                options.traceOverhead = true
            case "--help", "-h":
                throw OptionError(nil)
            default:
                throw OptionError("unknown option \(argument)")
            }
        }
        if options.traceOverhead && options.large { throw OptionError("--trace-overhead runs with the bank workload, not --large") }
        if options.traceOverhead, let path = ProcessInfo.processInfo.environment["STRATA_TRACE"], !path.isEmpty {
            throw OptionError("--trace-overhead makes its own recordings: unset STRATA_TRACE")
        }
        return options
    }
}

/// A command-line problem (`message` nil: just print the usage).
struct OptionError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
