import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Insert N objects through a context and save (one transaction) vs the same rows with one
/// prepared INSERT in one transaction.
enum InsertBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        for count in [sizes.insertSmall, sizes.insertLarge] {
            let configuration = BenchmarkConfiguration(warmupIterations: 0, maxIterations: count >= 1_000_000 ? 3 : 5, scalingFactor: count)
            suite.pair(
                "insert \(Sizes.label(count)) + save", configuration: configuration,
                targets: [.ratioAtMost(3.0)],
                strata: { context in
                    let url = Datasets.shared.freshURL("insert-strata")
                    let store = try Datasets.shared.context(for: url)
                    context.startMeasurement()
                    try store.performAndWait {
                        for index in 0..<count {
                            let item = Item(context: store)
                            item.name = Datasets.name(index)
                            item.number = Datasets.number(index)
                            item.score = Datasets.score(index)
                            item.flag = Datasets.flag(index)
                            item.created = Date(timeIntervalSinceReferenceDate: Datasets.created(index))
                        }
                        try store.save()
                        store.reset()
                    }
                    context.stopMeasurement()
                    try? FileManager.default.removeItem(at: url)
                },
                raw: { context in
                    let url = Datasets.shared.freshURL("insert-raw")
                    let db = try RawDatabase(path: url.path)
                    try db.execute("CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL, ZNAME TEXT, ZNUMBER INTEGER, ZSCORE, ZFLAG INTEGER, ZCREATED REAL)")
                    try db.execute("CREATE INDEX ZITEM_ZNUMBER ON ZITEM (ZNUMBER)")
                    context.startMeasurement()
                    try db.execute("BEGIN IMMEDIATE")
                    let insert = try db.prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED) VALUES (?, 1, 1, ?, ?, ?, ?, ?)")
                    for index in 0..<count {
                        sqlite3_bind_int64(insert, 1, Int64(index + 1))
                        bindText(insert, 2, Datasets.name(index))
                        sqlite3_bind_int64(insert, 3, Datasets.number(index))
                        sqlite3_bind_double(insert, 4, Datasets.score(index))
                        sqlite3_bind_int64(insert, 5, Datasets.flag(index) ? 1 : 0)
                        sqlite3_bind_double(insert, 6, Datasets.created(index))
                        guard sqlite3_step(insert) == SQLITE_DONE else { throw RawDatabase.Failure(message: "insert failed") }
                        sqlite3_reset(insert)
                    }
                    sqlite3_finalize(insert)
                    try db.execute("COMMIT")
                    context.stopMeasurement()
                    try? FileManager.default.removeItem(at: url)
                })
        }
    }
}
