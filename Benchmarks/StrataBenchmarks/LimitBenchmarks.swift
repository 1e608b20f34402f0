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
                        name, configuration: configuration,
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
                            guard let store = context.userInfo["store"] as? ManagedObjectContext else { return }
                            try store.performAndWait {
                                let request = FetchRequest<Item>(entityName: "Item")
                                request.fetchLimit = 100
                                request.fetchOffset = offset
                                if sorted { request.sortDescriptors = [ObjectSortDescriptor(key: "number")] }
                                request.returnsObjectsAsFaults = false
                                let items = try store.fetch(request)
                                context.blackHole(items.reduce(0) { $0 + $1.number })
                                store.reset()
                            }
                        },
                        raw: { context in
                            guard let db = context.userInfo["db"] as? RawDatabase else { return }
                            let order = sorted ? "ZNUMBER, Z_PK" : "Z_PK"
                            let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM ORDER BY \(order) LIMIT 100 OFFSET ?")
                            sqlite3_bind_int64(select, 1, Int64(offset))
                            var total: Int64 = 0
                            while sqlite3_step(select) == SQLITE_ROW {
                                let item = RawItem(
                                    key: sqlite3_column_int64(select, 0), name: select.text(1), number: sqlite3_column_int64(select, 2), score: sqlite3_column_double(select, 3),
                                    flag: sqlite3_column_int64(select, 4) != 0, created: sqlite3_column_double(select, 5))
                                total += item.number
                            }
                            sqlite3_finalize(select)
                            context.blackHole(total)
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
                guard let store = context.userInfo["store"] as? ManagedObjectContext else { return }
                let count = try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.predicate = ObjectPredicate(format: "score > %@ AND flag == YES", 50.0)
                    return try store.count(for: request)
                }
                context.blackHole(count)
            },
            raw: { context in
                guard let db = context.userInfo["db"] as? RawDatabase else { return }
                let select = try db.prepare("SELECT count(*) FROM ZITEM WHERE ZSCORE > ? AND ZFLAG = 1")
                sqlite3_bind_double(select, 1, 50.0)
                _ = sqlite3_step(select)
                context.blackHole(sqlite3_column_int64(select, 0))
                sqlite3_finalize(select)
            })
    }
}
