import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// `fetchLimit` / `fetchOffset` and counts: their cost must follow the limit and the index, not
/// the table size.
enum LimitBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let configuration = BenchmarkConfiguration(warmupIterations: 2, maxIterations: 30, scalingFactor: 100)
        for rows in [sizes.small, sizes.large] {
            for offsetFraction in [0, 9] {
                let offset = rows * offsetFraction / 10
                for sorted in [false, true] {
                    let name = "fetchLimit 100 offset \(Sizes.label(offset)) \(sorted ? "sorted by indexed number" : "unsorted") over \(Sizes.label(rows))"
                    suite.pair(
                        name, configuration: configuration, targets: sorted ? [.ratioAtMost(1.5)] : [],
                        setUp: { context in
                            let url = try Datasets.shared.store(items: rows)
                            context.userInfo["url"] = url
                            if context.pairSide == .strata {
                                context.userInfo["store"] = try Datasets.shared.context(for: url)
                            } else {
                                context.userInfo["db"] = try RawDatabase(path: url.path)
                            }
                        },
                        strata: { context in
                            let store = try context.require("store", as: ManagedObjectContext.self)
                            return try store.performAndWait {
                                let request = FetchRequest<Item>(entityName: "Item")
                                request.fetchLimit = 100
                                request.fetchOffset = offset
                                if sorted { request.sortDescriptors = [ObjectSortDescriptor(key: "number")] }
                                request.returnsObjectsAsFaults = false
                                var digest = RowDigest()
                                for item in try store.fetch(request) { ItemDigest.add(item, to: &digest) }
                                store.reset()
                                return digest
                            }
                        },
                        raw: { context in
                            let db = try context.require("db", as: RawDatabase.self)
                            let order = sorted ? "ZNUMBER, Z_PK" : "Z_PK"
                            let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM ORDER BY \(order) LIMIT 100 OFFSET ?")
                            sqlite3_bind_int64(select, 1, Int64(offset))
                            var digest = RowDigest()
                            while sqlite3_step(select) == SQLITE_ROW { ItemDigest.add(RawItem(row: select), to: &digest) }
                            sqlite3_finalize(select)
                            return digest
                        })
                }
            }
        }
        for sorted in [false, true] {
            let kind = sorted ? "sorted by indexed number" : "unsorted"
            suite.relation(
                "fetchLimit 100 offset 0 \(kind): \(Sizes.label(sizes.large)) vs \(Sizes.label(sizes.small)) rows",
                numerator: BenchmarkSuite.pairMemberName("fetchLimit 100 offset 0 \(kind) over \(Sizes.label(sizes.large))", side: .strata),
                denominator: BenchmarkSuite.pairMemberName("fetchLimit 100 offset 0 \(kind) over \(Sizes.label(sizes.small))", side: .strata),
                target: .ratioAtMost(1.5))
        }

        let rows = sizes.large
        suite.pair(
            "count with a predicate over \(Sizes.label(rows))", configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 10),
            setUp: { context in
                let url = try Datasets.shared.store(items: rows)
                if context.pairSide == .strata {
                    context.userInfo["store"] = try Datasets.shared.context(for: url)
                } else {
                    context.userInfo["db"] = try RawDatabase(path: url.path)
                }
            },
            strata: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                let count = try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.predicate = ObjectPredicate(format: "score > %@ AND flag == YES", 50.0)
                    return try store.count(for: request)
                }
                return RowDigest(count: count, checksum: UInt64(count))
            },
            raw: { context in
                let db = try context.require("db", as: RawDatabase.self)
                let select = try db.prepare("SELECT count(*) FROM ZITEM WHERE ZSCORE > ? AND ZFLAG = 1")
                defer { sqlite3_finalize(select) }
                sqlite3_bind_double(select, 1, 50.0)
                guard sqlite3_step(select) == SQLITE_ROW else { throw RawDatabase.Failure(message: "count returned no row") }
                let count = Int(sqlite3_column_int64(select, 0))
                return RowDigest(count: count, checksum: UInt64(count))
            })
    }
}
