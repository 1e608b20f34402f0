import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Fetch N objects, edit each and save once, vs reading the same rows and one `UPDATE … WHERE
/// Z_PK = ?` per row in one transaction. Each side owns a copy of the data set; iteration k of
/// both sides leaves every score raised by k + 1, which the row check reads back (unmeasured).
enum UpdateBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.updates
        suite.pair(
            "edit each of \(Sizes.label(count)) fetched objects + one save",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count),
            targets: [.ratioAtMost(3.0)],
            setUp: { context in
                context.userInfo["url"] = try Datasets.shared.privateStore(items: count, label: "update-\(context.pairSide?.rawValue ?? "side")")
            },
            tearDown: { context in
                if let url = context.userInfo["url"] as? URL { try? FileManager.default.removeItem(at: url) }
            },
            strata: fetchEditSave,
            raw: { context in
                let url = try context.require("url", as: URL.self)
                let db = try RawDatabase(path: url.path)
                let select = try db.prepare("SELECT Z_PK, ZSCORE FROM ZITEM")
                var rows: [(key: Int64, score: Double)] = []
                while sqlite3_step(select) == SQLITE_ROW { rows.append((sqlite3_column_int64(select, 0), sqlite3_column_double(select, 1))) }
                sqlite3_finalize(select)
                try db.execute("BEGIN IMMEDIATE")
                let update = try db.prepare("UPDATE ZITEM SET ZSCORE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?")
                for row in rows {
                    sqlite3_bind_double(update, 1, row.score + 1)
                    sqlite3_bind_int64(update, 2, row.key)
                    guard sqlite3_step(update) == SQLITE_DONE else {
                        sqlite3_finalize(update)
                        throw RawDatabase.Failure(message: "update failed")
                    }
                    sqlite3_reset(update)
                }
                sqlite3_finalize(update)
                try db.execute("COMMIT")
                return try context.unmeasured { try ItemDigest.ofStore(url) }
            })
    }

    /// The Strata side: fetch every item of the side's store, `score += 1` on each, one save;
    /// returns the store's digest (unmeasured). Also the slow side of the batch-update pair.
    static func fetchEditSave(_ context: BenchmarkContext) throws -> RowDigest {
        let url = try context.require("url", as: URL.self)
        let store = try Datasets.shared.context(for: url)
        try store.performAndWait {
            for item in try store.fetch(FetchRequest<Item>(entityName: "Item")) { item.score += 1 }
            try store.save()
            context.unmeasured { store.reset() }
        }
        return try context.unmeasured { try ItemDigest.ofStore(url) }
    }
}
