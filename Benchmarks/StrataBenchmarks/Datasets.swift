import CSQLite
import Foundation
import Strata

/// Benchmark data sets: Strata stores filled with N items (and parents with children) through
/// raw bulk inserts into Strata's own tables, built once per run and shared by both sides of
/// every pair, so both read exactly the same file.
final class Datasets: @unchecked Sendable {
    // @unchecked Sendable: used from the benchmark's single thread only.
    static let shared = Datasets()

    let directory: URL
    private var built: [String: URL] = [:]

    private init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-bench-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func removeAll() { try? FileManager.default.removeItem(at: directory) }

    /// A fresh, empty store file path.
    func freshURL(_ label: String) -> URL {
        directory.appendingPathComponent("\(label)-\(UUID().uuidString).sqlite")
    }

    /// Deterministic item values for row `index`.
    static func name(_ index: Int) -> String { "item \(index)" }
    static func number(_ index: Int) -> Int64 { Int64((index &* 7_919) % 1_000_003) }
    static func score(_ index: Int) -> Double { Double(index % 10_000) / 100 }
    static func flag(_ index: Int) -> Bool { index % 3 == 0 }
    static func created(_ index: Int) -> Double { Double(index) * 60 }

    /// A store with `count` items (and, when `parents` > 0, that many parents with
    /// `childrenPerParent` children each).
    func store(items count: Int, parents: Int = 0, childrenPerParent: Int = 0) throws -> URL {
        let key = "\(count)-\(parents)-\(childrenPerParent)"
        if let url = built[key] { return url }
        let url = freshURL("dataset-\(key)")
        try build(at: url, items: count, parents: parents, childrenPerParent: childrenPerParent)
        built[key] = url
        return url
    }

    /// A store of its own with `count` items, for a benchmark side that writes to it.
    func privateStore(items count: Int, label: String) throws -> URL {
        let url = freshURL(label)
        try build(at: url, items: count, parents: 0, childrenPerParent: 0)
        return url
    }

    private func build(at url: URL, items count: Int, parents: Int, childrenPerParent: Int) throws {
        // Let Strata create the schema and metadata.
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: BenchmarkModel.shared)
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let db = try RawDatabase(path: url.path)
        let itemCode = try db.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Item'")
        try db.execute("BEGIN")
        let insert = try db.prepare("INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED) VALUES (?, ?, 1, ?, ?, ?, ?, ?)")
        for index in 0..<count {
            sqlite3_bind_int64(insert, 1, Int64(index + 1))
            sqlite3_bind_int64(insert, 2, itemCode)
            bindText(insert, 3, Self.name(index))
            sqlite3_bind_int64(insert, 4, Self.number(index))
            sqlite3_bind_double(insert, 5, Self.score(index))
            sqlite3_bind_int64(insert, 6, Self.flag(index) ? 1 : 0)
            sqlite3_bind_double(insert, 7, Self.created(index))
            guard sqlite3_step(insert) == SQLITE_DONE else { throw RawDatabase.Failure(message: "insert failed") }
            sqlite3_reset(insert)
        }
        sqlite3_finalize(insert)
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(itemCode)")
        if parents > 0 {
            let parentCode = try db.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Parent'")
            let childCode = try db.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Child'")
            let parentInsert = try db.prepare("INSERT INTO ZPARENT (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, ?, 1, ?)")
            let childInsert = try db.prepare("INSERT INTO ZCHILD (Z_PK, Z_ENT, Z_OPT, ZNAME, ZVALUE, ZPARENT) VALUES (?, ?, 1, ?, ?, ?)")
            var childKey: Int64 = 0
            for parent in 0..<parents {
                sqlite3_bind_int64(parentInsert, 1, Int64(parent + 1))
                sqlite3_bind_int64(parentInsert, 2, parentCode)
                bindText(parentInsert, 3, "parent \(parent)")
                guard sqlite3_step(parentInsert) == SQLITE_DONE else { throw RawDatabase.Failure(message: "insert failed") }
                sqlite3_reset(parentInsert)
                for child in 0..<childrenPerParent {
                    childKey += 1
                    sqlite3_bind_int64(childInsert, 1, childKey)
                    sqlite3_bind_int64(childInsert, 2, childCode)
                    bindText(childInsert, 3, "child \(child)")
                    sqlite3_bind_int64(childInsert, 4, Int64(child))
                    sqlite3_bind_int64(childInsert, 5, Int64(parent + 1))
                    guard sqlite3_step(childInsert) == SQLITE_DONE else { throw RawDatabase.Failure(message: "insert failed") }
                    sqlite3_reset(childInsert)
                }
            }
            sqlite3_finalize(parentInsert)
            sqlite3_finalize(childInsert)
            try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(parents) WHERE Z_ENT = \(parentCode)")
            try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(childKey) WHERE Z_ENT = \(childCode)")
        }
        try db.execute("COMMIT")
        try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// A root context on a fresh coordinator for `url`, the store added with `options`.
    func context(for url: URL, options: [String: any Sendable] = [:]) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: BenchmarkModel.shared)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
