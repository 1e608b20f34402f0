import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Fetching everything: as faults, fully materialised, and iterated in batches.
enum FetchBenchmarks {
    static func rawReadAll(_ url: URL, _ body: (OpaquePointer) -> Void) throws {
        let db = try RawDatabase(path: url.path)
        let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM ORDER BY Z_PK")
        while sqlite3_step(select) == SQLITE_ROW { body(select) }
        sqlite3_finalize(select)
    }

    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.large
        let label = Sizes.label(count)
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)

        suite.pair(
            "fetch \(label) as faults", configuration: configuration, targets: [.ratioAtMost(1.5)],
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: count) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let objects = try store.fetch(FetchRequest<Item>(entityName: "Item"))
                    context.blackHole(objects.count)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                var rows: [RawItem] = []
                rows.reserveCapacity(count)
                try rawReadAll(url) { row in
                    rows.append(
                        RawItem(
                            key: sqlite3_column_int64(row, 0), name: row.text(1), number: sqlite3_column_int64(row, 2), score: sqlite3_column_double(row, 3), flag: sqlite3_column_int64(row, 4) != 0,
                            created: sqlite3_column_double(row, 5)))
                }
                context.blackHole(rows.count)
            })

        suite.pair(
            "fetch \(label) materialized, read every attribute", configuration: configuration, targets: [.ratioAtMost(2.5)],
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: count) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var checksum = 0.0
                    for item in try store.fetch(request) {
                        checksum += Double(item.name.utf8.count) + Double(item.number) + item.score + (item.flag ? 1 : 0) + item.created.timeIntervalSinceReferenceDate
                    }
                    context.blackHole(checksum)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                var rows: [RawItem] = []
                rows.reserveCapacity(count)
                try rawReadAll(url) { row in
                    rows.append(
                        RawItem(
                            key: sqlite3_column_int64(row, 0), name: row.text(1), number: sqlite3_column_int64(row, 2), score: sqlite3_column_double(row, 3), flag: sqlite3_column_int64(row, 4) != 0,
                            created: sqlite3_column_double(row, 5)))
                }
                var checksum = 0.0
                for row in rows {
                    checksum += Double(row.name.utf8.count) + Double(row.number) + row.score + (row.flag ? 1 : 0) + row.created
                }
                context.blackHole(checksum)
            })

        suite.pair(
            "iterate \(label) with fetchBatchSize 500", configuration: BenchmarkConfiguration(warmupIterations: 0, maxIterations: 3, scalingFactor: count),
            targets: [.absoluteAtMost(64, metric: .peakMemoryResidentDelta, unit: "MiB")],
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: count) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.fetchBatchSize = 500
                    let results = try store.fetchBatched(request)
                    var checksum = 0.0
                    for item in results { checksum += item.score }
                    context.blackHole(checksum)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                var checksum = 0.0
                try rawReadAll(url) { row in checksum += sqlite3_column_double(row, 3) }
                context.blackHole(checksum)
            })
    }
}
