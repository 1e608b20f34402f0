import BenchmarkHarness
import Foundation
import Strata
import StrataPostgreSQL

/// Writes on PostgreSQL: insert N + one save, edit each of N fetched objects + one save, and a
/// batch update of N rows, each against prepared statements in one transaction. Each side
/// writes to namespaces of its own, and the row check reads the side's table back with one
/// `SELECT` outside the measurement.
enum PostgreSQLWriteBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes, server: PostgreSQLBenchServer) {
        registerInsert(in: suite, count: sizes.postgreSQLRows, server: server)
        registerEdit(in: suite, count: sizes.postgreSQLUpdates, server: server)
        registerBatchUpdate(in: suite, count: sizes.postgreSQLRows, server: server)
    }

    /// Each iteration inserts into a new, empty namespace (made and dropped outside the
    /// measurement): Strata inserts N `Item`s and saves once (the store's multi-row `INSERT`s
    /// and key sequence); raw prepares one `INSERT` and runs it N times in one transaction.
    private static func registerInsert(in suite: BenchmarkSuite, count: Int, server: PostgreSQLBenchServer) {
        suite.pair(
            "postgresql: insert \(Sizes.label(count)) + save", configuration: PostgreSQLBenchmarks.configuration(warmups: 1, maxIterations: 5, scalingFactor: count),
            targets: [.ratioAtMost(1.5)],
            setUp: { context in context.userInfo["connection"] = try server.connect() },
            strata: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let namespace = try server.makeNamespace("insert_strata", items: 0, on: connection)
                defer { try? server.drop(namespace, on: connection) }
                let store = try server.context(namespace: namespace)
                defer { server.close(store) }
                context.startMeasurement()
                try store.performAndWait {
                    for index in 0..<count {
                        let item = Item(context: store)
                        item.fill(datasetRow: index)
                    }
                    try store.save()
                    store.reset()
                }
                context.stopMeasurement()
                return try PostgreSQLBenchServer.digest(of: namespace, on: connection)
            },
            raw: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let namespace = try server.makeNamespace("insert_raw", items: 0, on: connection)
                defer { try? server.drop(namespace, on: connection) }
                let table = try PostgreSQLBenchServer.itemTable(namespace)
                context.startMeasurement()
                let insert = try connection.prepare(
                    "INSERT INTO \(table) (\"$pk\", \"$entity\", \"$version\", \"name\", \"number\", \"score\", \"flag\", \"created\") VALUES ($1, 'Item', 1, $2, $3, $4, $5, $6)")
                try connection.transaction {
                    for index in 0..<count {
                        try connection.execute(
                            insert,
                            parameters: [
                                .int64(Int64(index + 1)), .text(Datasets.name(index)), .int64(Datasets.number(index)), .double(Datasets.score(index)),
                                .bool(Datasets.flag(index)), .double(Datasets.created(index)),
                            ])
                    }
                }
                context.stopMeasurement()
                try connection.deallocate(insert)
                return try PostgreSQLBenchServer.digest(of: namespace, on: connection)
            })
    }

    /// Strata fetches every item, `score += 1` on each and saves once (one checked `UPDATE` per
    /// object); raw reads `"$pk", "score"` and runs one prepared `UPDATE … WHERE "$pk" = $2` per
    /// row in one transaction. Iteration k of both sides leaves every score raised by k + 1.
    private static func registerEdit(in suite: BenchmarkSuite, count: Int, server: PostgreSQLBenchServer) {
        suite.pair(
            "postgresql: edit each of \(Sizes.label(count)) fetched objects + one save",
            configuration: PostgreSQLBenchmarks.configuration(warmups: 1, maxIterations: 5, scalingFactor: count), targets: [.ratioAtMost(2.0)],
            setUp: PostgreSQLBenchmarks.setUp("edit", rows: count, server: server) { context in
                guard context.pairSide == .raw else { return }
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let table = try PostgreSQLBenchServer.itemTable(try context.require("namespace", as: String.self))
                context.userInfo["select"] = try connection.prepare("SELECT \"$pk\", \"score\" FROM \(table)")
                context.userInfo["update"] = try connection.prepare("UPDATE \(table) SET \"score\" = $1, \"$version\" = \"$version\" + 1 WHERE \"$pk\" = $2")
            },
            tearDown: PostgreSQLBenchmarks.tearDown(server: server),
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                try store.performAndWait {
                    for item in try store.fetch(FetchRequest<Item>(entityName: "Item")) { item.score += 1 }
                    try store.save()
                    context.unmeasured { store.reset() }
                }
                return try context.unmeasured { try sideDigest(context) }
            },
            raw: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let update = try context.require("update", as: PostgreSQLPreparedStatement.self)
                var rows: [(key: Int64, score: Double)] = []
                rows.reserveCapacity(count)
                for row in try connection.execute(try context.require("select", as: PostgreSQLPreparedStatement.self)) {
                    guard let key = try row.int64(0), let score = try row.double(1) else { throw BenchError("an item row holds NULL") }
                    rows.append((key, score))
                }
                try connection.transaction {
                    for row in rows {
                        guard try connection.execute(update, parameters: [.double(row.score + 1), .int64(row.key)]).rowsAffected == 1 else {
                            throw BenchError("the update of row \(row.key) changed no row")
                        }
                    }
                }
                return try context.unmeasured { try sideDigest(context) }
            })
    }

    /// Strata's batch update of a constant (`score = k + 0.5` in iteration k), which the store
    /// runs as one `UPDATE … RETURNING` and announces to other stores; raw runs the prepared bare
    /// `UPDATE` in one transaction.
    private static func registerBatchUpdate(in suite: BenchmarkSuite, count: Int, server: PostgreSQLBenchServer) {
        suite.pair(
            "postgresql: batch update of \(Sizes.label(count)) rows",
            configuration: PostgreSQLBenchmarks.configuration(warmups: 1, maxIterations: 5, scalingFactor: count), targets: [.ratioAtMost(1.5)],
            setUp: PostgreSQLBenchmarks.setUp("batch", rows: count, server: server) { context in
                guard context.pairSide == .raw else { return }
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let table = try PostgreSQLBenchServer.itemTable(try context.require("namespace", as: String.self))
                context.userInfo["update"] = try connection.prepare("UPDATE \(table) SET \"score\" = $1, \"$version\" = \"$version\" + 1")
            },
            tearDown: PostgreSQLBenchmarks.tearDown(server: server),
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                let value = Double(context.iteration) + 0.5
                try store.performAndWait {
                    let update = BatchUpdateRequest(entityName: "Item")
                    update.propertiesToUpdate = ["score": value]
                    update.resultType = .updatedObjectsCountResultType
                    guard (try store.execute(update) as? BatchUpdateResult)?.result as? Int == count else {
                        throw BenchError("the batch update did not update \(count) rows")
                    }
                }
                return try context.unmeasured { try sideDigest(context) }
            },
            raw: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let update = try context.require("update", as: PostgreSQLPreparedStatement.self)
                let value = Double(context.iteration) + 0.5
                try connection.transaction {
                    guard try connection.execute(update, parameters: [.double(value)]).rowsAffected == count else {
                        throw BenchError("the update did not change \(count) rows")
                    }
                }
                return try context.unmeasured { try sideDigest(context) }
            })
    }

    /// The digest of the side's namespace, read on its connection; then `VACUUM` of its table,
    /// so that every iteration of the updating pairs starts without the dead rows of the one
    /// before (the server would otherwise clean them up during some later iteration).
    private static func sideDigest(_ context: BenchmarkContext) throws -> RowDigest {
        let namespace = try context.require("namespace", as: String.self)
        let connection = try context.require("connection", as: PostgreSQLConnection.self)
        let digest = try PostgreSQLBenchServer.digest(of: namespace, on: connection)
        try connection.execute("VACUUM \(try PostgreSQLBenchServer.itemTable(namespace))")
        return digest
    }
}
