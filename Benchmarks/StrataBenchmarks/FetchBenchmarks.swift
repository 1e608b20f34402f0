import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Fetching everything: as faults, fully materialised (typed and through `value(forKey:)`), and
/// iterated in batches.
enum FetchBenchmarks {
    /// Steps every row of `SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM`.
    static func rawReadAll(_ url: URL, _ body: (OpaquePointer) -> Void) throws {
        let db = try RawDatabase(path: url.path)
        let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM ORDER BY Z_PK")
        while sqlite3_step(select) == SQLITE_ROW { body(select) }
        sqlite3_finalize(select)
    }

    /// The raw side of the materialized pairs: every row into a struct, then every field read.
    static func rawMaterialize(_ context: BenchmarkContext) throws -> RowDigest {
        let url = try context.require("url", as: URL.self)
        var rows: [RawItem] = []
        rows.reserveCapacity(context.scalingFactor)
        try rawReadAll(url) { row in rows.append(RawItem(row: row)) }
        var digest = RowDigest()
        for row in rows { ItemDigest.add(row, to: &digest) }
        return digest
    }

    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.large
        let label = Sizes.label(count)
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        let setUp: BenchmarkClosure = { context in context.userInfo["url"] = try Datasets.shared.store(items: count) }

        suite.pair(
            "fetch \(label) as faults", configuration: configuration, targets: [.ratioAtMost(1.5)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    var objects = try store.fetch(FetchRequest<Item>(entityName: "Item"))
                    let digest = context.unmeasured {
                        var digest = RowDigest()
                        for item in objects { ItemDigest.add(item, to: &digest) }
                        return digest
                    }
                    objects.removeAll()
                    return digest
                }
            },
            raw: { context in
                let url = try context.require("url", as: URL.self)
                var rows: [RawItem] = []
                rows.reserveCapacity(count)
                try rawReadAll(url) { row in rows.append(RawItem(row: row)) }
                let digest = context.unmeasured {
                    var digest = RowDigest()
                    for row in rows { ItemDigest.add(row, to: &digest) }
                    return digest
                }
                rows.removeAll()
                return digest
            })

        suite.pair(
            "fetch \(label) materialized, read every attribute", configuration: configuration, targets: [.ratioAtMost(2.5)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var digest = RowDigest()
                    for item in try store.fetch(request) { ItemDigest.add(item, to: &digest) }
                    return digest
                }
            },
            raw: rawMaterialize)

        suite.pair(
            "fetch \(label) materialized, read every attribute through value(forKey:)", configuration: configuration, targets: [.ratioAtMost(3.0)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var digest = RowDigest()
                    for item in try store.fetch(request) {
                        ItemDigest.add(
                            name: item.value(forKey: "name") as? String ?? "",
                            number: item.value(forKey: "number") as? Int64 ?? 0,
                            score: item.value(forKey: "score") as? Double ?? 0,
                            flag: item.value(forKey: "flag") as? Bool ?? false,
                            created: (item.value(forKey: "created") as? Date)?.timeIntervalSinceReferenceDate ?? 0,
                            to: &digest)
                    }
                    return digest
                }
            },
            raw: rawMaterialize)

        suite.pair(
            "iterate \(label) with fetchBatchSize 500", configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count),
            targets: [.ratioAtMost(3.0), .worstIterationAtMost(64, metric: .peakHeapDelta, unit: "MiB")], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.fetchBatchSize = 500
                    var digest = RowDigest()
                    for item in try store.fetchBatched(request) { digest.add(Int64(bitPattern: item.score.bitPattern)) }
                    return digest
                }
            },
            raw: { context in
                var digest = RowDigest()
                try rawReadAll(try context.require("url", as: URL.self)) { row in
                    digest.add(Int64(bitPattern: sqlite3_column_double(row, 3).bitPattern))
                }
                return digest
            })
    }
}
