import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Many fetches of one object by an indexed key: the fixed cost of a fetch (planning, SQL, one
/// row) against a cached prepared statement.
enum LookupBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let rows = sizes.large
        let lookups = sizes.lookups
        // Keys of rows spread over the whole table, in a fixed order.
        let keys = (0..<lookups).map { Datasets.number(($0 &* 48_271) % rows) }

        suite.pair(
            "\(Sizes.label(lookups)) fetches of one object by indexed number over \(Sizes.label(rows))",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 10, scalingFactor: lookups),
            targets: [.ratioAtMost(3.0)],
            setUp: { context in
                let url = try Datasets.shared.store(items: rows)
                if context.pairSide == .strata {
                    context.userInfo["store"] = try Datasets.shared.context(for: url)
                } else {
                    context.userInfo["select"] = try CachedStatement(
                        RawDatabase(path: url.path), "SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM WHERE ZNUMBER = ? LIMIT 1")
                }
            },
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
                let select = try context.require("select", as: CachedStatement.self).handle
                var digest = RowDigest()
                for key in keys {
                    sqlite3_bind_int64(select, 1, key)
                    if sqlite3_step(select) == SQLITE_ROW { ItemDigest.add(RawItem(row: select), to: &digest) }
                    sqlite3_reset(select)
                }
                return digest
            })
    }
}
