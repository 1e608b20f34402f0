import BenchmarkHarness
import Foundation
import Strata
import StrataPostgreSQL

/// The suite's pairs on PostgreSQL: Strata on the PostgreSQL store against hand-written libpq
/// calls through `StrataPostgreSQL` on the same server (prepared statements, one transaction for
/// writes), in the tables the store creates. Every pair side has namespaces of its own and drops
/// them at its tear-down.
///
/// They run when `STRATA_BENCH_POSTGRESQL_URL` (else `STRATA_TEST_POSTGRESQL_URL`, which `make
/// test`, `make bench` and CI set) names a server and `STRATA_SKIP_POSTGRESQL` is not 1;
/// otherwise one line on standard error says they were skipped and why.
enum PostgreSQLBenchmarks {
    /// Registers the pairs when a server is named; returns it (nil when skipped), so the run can
    /// drop what it left behind with ``PostgreSQLBenchServer/dropAll()``.
    static func register(in suite: BenchmarkSuite, sizes: Sizes) -> PostgreSQLBenchServer? {
        func skip(_ reason: String) {
            FileHandle.standardError.write(Data("note: postgresql pairs skipped: \(reason)\n".utf8))
        }
        let environment = ProcessInfo.processInfo.environment
        if environment["STRATA_SKIP_POSTGRESQL"] == "1" {
            skip("STRATA_SKIP_POSTGRESQL=1")
            return nil
        }
        let server: PostgreSQLBenchServer
        do {
            guard let named = try PostgreSQLBenchServer.fromEnvironment(environment) else {
                skip(
                    "neither \(PostgreSQLBenchServer.urlVariables.joined(separator: " nor ")) names a server "
                        + "(`make bench` starts a throwaway one; or scripts/postgres-test-server.sh start)")
                return nil
            }
            server = named
        } catch {
            // A URL that is set but unusable fails the run: the pairs were asked for.
            suite.pair("postgresql: server", strata: { _ in throw error }, raw: { _ in throw error })
            return nil
        }
        PostgreSQLReadBenchmarks.register(in: suite, sizes: sizes, server: server)
        PostgreSQLWriteBenchmarks.register(in: suite, sizes: sizes, server: server)
        return server
    }

    /// The configuration of a PostgreSQL pair. Baseline tolerances are wider than the suite's
    /// for wall clock and throughput (±50 %): the server's own work (autovacuum after the
    /// updates, checkpoints, its caches) moves a pair's p50 by more than 25 % between runs of
    /// one build; CPU time (this process only) under 5 ms is never called a change, since a raw
    /// side that leaves the work to the server spends a few hundred microseconds.
    static func configuration(warmups: Int = 1, maxIterations: Int = 5, scalingFactor: Int) -> BenchmarkConfiguration {
        var thresholds = BenchmarkConfiguration.defaultThresholds
        thresholds[.wallClock] = 0.5
        thresholds[.throughput] = 0.5
        var absolute = BenchmarkConfiguration.defaultAbsoluteThresholds
        absolute[.cpuTotal] = 5_000_000
        return BenchmarkConfiguration(
            warmupIterations: warmups, maxIterations: maxIterations, scalingFactor: scalingFactor, thresholds: thresholds, absoluteThresholds: absolute)
    }

    /// A set-up giving the side a connection, a namespace of its own holding `rows` items and,
    /// on the Strata side, a context on a store in it; then `more` (prepared statements).
    static func setUp(_ label: String, rows: Int, server: PostgreSQLBenchServer, more: @escaping BenchmarkClosure = { _ in }) -> BenchmarkClosure {
        { context in
            let connection = try server.connect()
            context.userInfo["connection"] = connection
            let namespace = try server.makeNamespace("\(label)_\(context.pairSide?.rawValue ?? "side")", items: rows, on: connection)
            context.userInfo["namespace"] = namespace
            if context.pairSide == .strata { context.userInfo["store"] = try server.context(namespace: namespace) }
            try more(context)
        }
    }

    /// The tear-down of ``setUp(_:rows:server:more:)``: closes the store, drops the namespace.
    static func tearDown(server: PostgreSQLBenchServer) -> BenchmarkClosure {
        { context in
            if let store = context.userInfo["store"] as? ManagedObjectContext { server.close(store) }
            context.userInfo["store"] = nil
            if let connection = context.userInfo["connection"] as? PostgreSQLConnection, let namespace = context.userInfo["namespace"] as? String {
                try server.drop(namespace, on: connection)
            }
        }
    }

    /// `SELECT` of every item column, as ``RawItem/init(row:)`` reads it.
    static func selectItems(_ namespace: String) throws -> String {
        "SELECT \"$pk\", \"name\", \"number\", \"score\", \"flag\", \"created\" FROM \(try PostgreSQLBenchServer.itemTable(namespace))"
    }
}
