import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Insert N objects through a context and save (one transaction), with typed properties or with
/// `setValue(_:forKey:)`, vs the same rows with one prepared INSERT in one transaction. Each side
/// then reads back what it wrote (unmeasured) for the row check.
enum InsertBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        for count in [sizes.insertSmall, sizes.insertLarge] {
            suite.pair(
                "insert \(Sizes.label(count)) + save", configuration: configuration(count),
                targets: [.ratioAtMost(2.5)],
                strata: { context in
                    try strataInsert(context, label: "insert-strata") { store, index in
                        let item = Item(context: store)
                        item.fill(datasetRow: index)
                    }
                },
                raw: { context in try rawInsert(context, count: count) })
        }

        let count = sizes.insertLarge
        suite.pair(
            "insert \(Sizes.label(count)) + save through setValue(_:forKey:)", configuration: configuration(count),
            targets: [.ratioAtMost(3.0)],
            strata: { context in
                try strataInsert(context, label: "insert-kvc-strata") { store, index in
                    let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: store)
                    item.setValue(Datasets.name(index), forKey: "name")
                    item.setValue(Datasets.number(index), forKey: "number")
                    item.setValue(Datasets.score(index), forKey: "score")
                    item.setValue(Datasets.flag(index), forKey: "flag")
                    item.setValue(Date(timeIntervalSinceReferenceDate: Datasets.created(index)), forKey: "created")
                }
            },
            raw: { context in try rawInsert(context, count: count) })

        func configuration(_ count: Int) -> BenchmarkConfiguration {
            BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        }

        /// Inserts `context.scalingFactor` items with `insert` into a fresh store and saves once.
        func strataInsert(_ context: BenchmarkContext, label: String, insert: (ManagedObjectContext, Int) throws -> Void) throws -> RowDigest {
            let url = Datasets.shared.freshURL(label)
            defer { try? FileManager.default.removeItem(at: url) }
            let store = try Datasets.shared.context(for: url)
            context.startMeasurement()
            try store.performAndWait {
                for index in 0..<context.scalingFactor { try insert(store, index) }
                try store.save()
                store.reset()
            }
            context.stopMeasurement()
            return try ItemDigest.ofStore(url)
        }
    }

    /// The raw side: one prepared INSERT per row in one transaction, on the same table shape.
    static func rawInsert(_ context: BenchmarkContext, count: Int) throws -> RowDigest {
        let url = Datasets.shared.freshURL("insert-raw")
        defer { try? FileManager.default.removeItem(at: url) }
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
            guard sqlite3_step(insert) == SQLITE_DONE else {
                sqlite3_finalize(insert)
                throw RawDatabase.Failure(message: "insert failed")
            }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try db.execute("COMMIT")
        context.stopMeasurement()
        return try ItemDigest.ofStore(url)
    }
}
