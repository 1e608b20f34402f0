import BenchmarkAllocator
import BenchmarkHarness
import Foundation

// `make bench` (full sizes) and `make bench-quick` (CI sizes, under three minutes).
// Every pair does the same work through Strata and through hand-written sqlite3 calls, in the
// same run; the report prints Strata ÷ raw and whether each target is met. The "postgresql:"
// pairs do the same on a PostgreSQL server against hand-written libpq calls, when
// STRATA_BENCH_POSTGRESQL_URL or STRATA_TEST_POSTGRESQL_URL names one (else they are skipped
// with a note).
// jemalloc reads the executable's options (Benchmarks/BenchmarkAllocator) when the process
// starts; the report header prints the one that matters. Naming them here keeps them linked.
_ = strata_benchmark_malloc_conf()
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
let postgreSQL = PostgreSQLBenchmarks.register(in: suite, sizes: sizes)
let status = suite.run()
Datasets.shared.removeAll()
// Every pair side drops its namespaces; this drops what a set-up that threw left behind.
if let postgreSQL, (try? postgreSQL.dropAll()) == nil {
    FileHandle.standardError.write(Data("note: could not check \(postgreSQL.description) for namespaces this run left behind\n".utf8))
}
exit(status)
