import BenchmarkHarness
import Foundation
import Strata
import StrataPostgreSQL

/// Reads on PostgreSQL: fetch N materialized and as faults, lookups of one object by the indexed
/// number, and `fetchLimit` 100 sorted on it. The raw side runs statements prepared in its
/// set-up and reads every row into a `RawItem` through `PostgreSQLRow` (the same row layer the
/// store reads with).
enum PostgreSQLReadBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes, server: PostgreSQLBenchServer) {
        let rows = sizes.postgreSQLRows
        let label = Sizes.label(rows)
        let configuration = PostgreSQLBenchmarks.configuration(warmups: 1, maxIterations: 5, scalingFactor: rows)
        let tearDown = PostgreSQLBenchmarks.tearDown(server: server)
        let prepareSelectAll: BenchmarkClosure = { context in
            guard context.pairSide == .raw else { return }
            let connection = try context.require("connection", as: PostgreSQLConnection.self)
            context.userInfo["select"] = try connection.prepare(PostgreSQLBenchmarks.selectItems(try context.require("namespace", as: String.self)))
        }

        /// The raw side of both fetches: every row into a struct (the digest outside the
        /// measurement when `digestUnmeasured`, as the SQLite fault pair does).
        func rawFetchAll(_ context: BenchmarkContext, digestUnmeasured: Bool) throws -> RowDigest {
            let connection = try context.require("connection", as: PostgreSQLConnection.self)
            let result = try connection.execute(try context.require("select", as: PostgreSQLPreparedStatement.self))
            var items: [RawItem] = []
            items.reserveCapacity(result.count)
            for row in result { items.append(try RawItem(row: row)) }
            func digest() -> RowDigest {
                var digest = RowDigest()
                for item in items { ItemDigest.add(item, to: &digest) }
                return digest
            }
            return digestUnmeasured ? context.unmeasured(digest) : digest()
        }

        suite.pair(
            "postgresql: fetch \(label) materialized, read every attribute", configuration: configuration, targets: [.ratioAtMost(2.0)],
            setUp: PostgreSQLBenchmarks.setUp("fetch", rows: rows, server: server, more: prepareSelectAll), tearDown: tearDown,
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                return try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var digest = RowDigest()
                    for item in try store.fetch(request) { ItemDigest.add(item, to: &digest) }
                    store.reset()
                    return digest
                }
            },
            raw: { context in try rawFetchAll(context, digestUnmeasured: false) })

        suite.pair(
            "postgresql: fetch \(label) as faults", configuration: configuration, targets: [.ratioAtMost(2.0)],
            setUp: PostgreSQLBenchmarks.setUp("faults", rows: rows, server: server, more: prepareSelectAll), tearDown: tearDown,
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                return try store.performAndWait {
                    let objects = try store.fetch(FetchRequest<Item>(entityName: "Item"))
                    let digest = context.unmeasured {
                        var digest = RowDigest()
                        for item in objects { ItemDigest.add(item, to: &digest) }
                        return digest
                    }
                    store.reset()
                    return digest
                }
            },
            raw: { context in try rawFetchAll(context, digestUnmeasured: true) })

        let lookups = sizes.postgreSQLLookups
        // Keys of rows spread over the whole table, in a fixed order (as the SQLite lookups).
        let keys = (0..<lookups).map { Datasets.number(($0 &* 48_271) % rows) }
        suite.pair(
            "postgresql: \(Sizes.label(lookups)) fetches of one object by indexed number over \(label)",
            configuration: PostgreSQLBenchmarks.configuration(warmups: 1, maxIterations: 10, scalingFactor: lookups), targets: [.ratioAtMost(2.5)],
            setUp: PostgreSQLBenchmarks.setUp("lookup", rows: rows, server: server) { context in
                guard context.pairSide == .raw else { return }
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let namespace = try context.require("namespace", as: String.self)
                context.userInfo["select"] = try connection.prepare(PostgreSQLBenchmarks.selectItems(namespace) + " WHERE \"number\" = $1 LIMIT 1")
            },
            tearDown: tearDown,
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                return try store.performAndWait {
                    var digest = RowDigest()
                    for key in keys {
                        let request = FetchRequest<Item>(entityName: "Item")
                        request.predicate = ObjectPredicate(format: "number == %@", NSNumber(value: key))
                        request.fetchLimit = 1
                        for item in try store.fetch(request) { ItemDigest.add(item, to: &digest) }
                    }
                    context.unmeasured { store.reset() }
                    return digest
                }
            },
            raw: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let select = try context.require("select", as: PostgreSQLPreparedStatement.self)
                var digest = RowDigest()
                for key in keys {
                    for row in try connection.execute(select, parameters: [.int64(key)]) { ItemDigest.add(try RawItem(row: row), to: &digest) }
                }
                return digest
            })

        let fetches = sizes.postgreSQLLimitFetches
        suite.pair(
            "postgresql: \(fetches) fetches of fetchLimit 100 sorted by indexed number over \(label)",
            configuration: PostgreSQLBenchmarks.configuration(warmups: 2, maxIterations: 20, scalingFactor: 100 * fetches), targets: [.ratioAtMost(2.0)],
            setUp: PostgreSQLBenchmarks.setUp("limit", rows: rows, server: server) { context in
                guard context.pairSide == .raw else { return }
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let namespace = try context.require("namespace", as: String.self)
                // Strata's order (nil first, the key breaking ties), which the store's index on
                // "number" (NULLS FIRST) serves.
                context.userInfo["select"] = try connection.prepare(PostgreSQLBenchmarks.selectItems(namespace) + " ORDER BY \"number\" NULLS FIRST, \"$pk\" LIMIT 100")
            },
            tearDown: tearDown,
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                return try store.performAndWait {
                    var digest = RowDigest()
                    for _ in 0..<fetches {
                        let request = FetchRequest<Item>(entityName: "Item")
                        request.fetchLimit = 100
                        request.sortDescriptors = [ObjectSortDescriptor(key: "number")]
                        request.returnsObjectsAsFaults = false
                        for item in try store.fetch(request) { ItemDigest.add(item, to: &digest) }
                        store.reset()
                    }
                    return digest
                }
            },
            raw: { context in
                let connection = try context.require("connection", as: PostgreSQLConnection.self)
                let select = try context.require("select", as: PostgreSQLPreparedStatement.self)
                var digest = RowDigest()
                for _ in 0..<fetches {
                    for row in try connection.execute(select) { ItemDigest.add(try RawItem(row: row), to: &digest) }
                }
                return digest
            })
    }
}
