import BenchmarkHarness
import Foundation

// `make bench` (full sizes) and `make bench-quick` (CI sizes, under three minutes).
// Every pair does the same work through Strata and through hand-written sqlite3 calls, in the
// same run; the report prints Strata ÷ raw and whether each target is met.
let quick = CommandLine.arguments.contains("--quick")
let sizes = Sizes(quick: quick)
let suite = BenchmarkSuite(name: "Strata")
InsertBenchmarks.register(in: suite, sizes: sizes)
FetchBenchmarks.register(in: suite, sizes: sizes)
LookupBenchmarks.register(in: suite, sizes: sizes)
UpdateBenchmarks.register(in: suite, sizes: sizes)
BatchUpdateBenchmarks.register(in: suite, sizes: sizes)
HistoryBenchmarks.register(in: suite, sizes: sizes)
BatchDeleteBenchmarks.register(in: suite, sizes: sizes)
BatchInsertBenchmarks.register(in: suite, sizes: sizes)
LimitBenchmarks.register(in: suite, sizes: sizes)
FaultBenchmarks.register(in: suite, sizes: sizes)
MemoryBenchmarks.register(in: suite, sizes: sizes)
LiveResultsBenchmarks.register(in: suite, sizes: sizes)
let status = suite.run()
Datasets.shared.removeAll()
exit(status)
