import Foundation
import Strata
import StrataSQLite

/// Writes the store-file fuzzer's seed corpus (`Fuzz/corpus/store-files/seed-*.sqlite`): small
/// real stores made with ``StoreFileOracle/model()``, a foreign SQLite file, an empty file, and
/// stores damaged with SQL where Strata's own assumptions live (metadata, key table, entity
/// codes, join rows, orders, column types). Regenerate with `make fuzz-store-seeds` (the fuzzer
/// binary writes them when `STRATA_FUZZ_WRITE_SEEDS` names a folder). Every file is rewritten
/// with 512-byte pages, so each is a few KB.
public enum StoreFileSeeds {
    /// In a damage's statements: close the connection and open a new one (after an edit of
    /// `sqlite_master`, which a connection sees only once reopened).
    static let reconnect = "-- reconnect"

    /// The damage done to a copy of the base store, by seed name: SQL run on it.
    static let damages: [(name: String, sql: [String])] = [
        ("metadata-garbage", ["UPDATE Z_METADATA SET Z_PLIST = X'DEADBEEF00FF'"]),
        ("metadata-empty-blob", ["UPDATE Z_METADATA SET Z_PLIST = X''"]),
        ("metadata-missing-row", ["DELETE FROM Z_METADATA"]),
        ("metadata-text", ["UPDATE Z_METADATA SET Z_PLIST = 'not a property list'"]),
        ("primarykey-missing-rows", ["DELETE FROM Z_PRIMARYKEY"]),
        ("primarykey-extreme-max", ["UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807 WHERE Z_NAME = 'Person'", "UPDATE Z_PRIMARYKEY SET Z_MAX = -1e300 WHERE Z_NAME = 'Tag'"]),
        ("primarykey-text-max", ["UPDATE Z_PRIMARYKEY SET Z_MAX = 'many'"]),
        ("version-at-maximum", ["UPDATE ZNOTE SET Z_OPT = 9223372036854775807", "UPDATE ZTAG SET Z_OPT = -9223372036854775808"]),
        ("missing-column", ["ALTER TABLE ZNOTE DROP COLUMN ZTEXT"]),
        ("missing-table", ["DROP TABLE ZTAG"]),
        ("unknown-entity-code", ["UPDATE ZPERSON SET Z_ENT = 99 WHERE Z_PK = 1", "UPDATE ZNOTE SET ZPERSON_ENT = 77"]),
        ("negative-keys", ["UPDATE ZNOTE SET ZPERSON = -3", "UPDATE ZPERSON SET ZMANAGER = -9223372036854775808 WHERE ZMANAGER IS NOT NULL"]),
        ("dangling-join", ["INSERT INTO Z_PERSON_TAGS (Z_SOURCE, Z_TARGET, Z_ORDER) VALUES (999, 1, 1), (1, 999, 2), (-1, -1, NULL)"]),
        ("negative-order", ["UPDATE Z_PERSON_TAGS SET Z_ORDER = -Z_ORDER", "UPDATE ZPERSON SET Z_FOK_MANAGER = -7"]),
        ("duplicate-order", ["UPDATE Z_PERSON_TAGS SET Z_ORDER = 1", "UPDATE ZPERSON SET Z_FOK_MANAGER = 1 WHERE ZMANAGER IS NOT NULL"]),
        (
            "wrong-column-types",
            [
                "UPDATE ZPERSON SET ZAGE = 'old', ZSCORE = X'01', ZBORN = 'yesterday', ZPHOTO = 42, ZBALANCE = 'lots', ZKEY = 'not-a-uuid', ZNAME = 3.5",
                "UPDATE ZPERSON SET ZSALARY = 1e300, ZACTIVE = 'yes' WHERE Z_ENT = 2", "UPDATE ZNOTE SET ZPERSON = 'one'", "UPDATE ZPERSON SET Z_OPT = 'x'",
            ]
        ),
        (
            "null-primary-keys",
            [
                "ALTER TABLE ZTAG RENAME TO ZTAG_OLD", "CREATE TABLE ZTAG (Z_PK, Z_ENT INTEGER, Z_OPT INTEGER, ZLABEL VARCHAR)",
                "INSERT INTO ZTAG SELECT * FROM ZTAG_OLD", "INSERT INTO ZTAG VALUES (NULL, 4, 1, 'nokey'), (NULL, NULL, NULL, NULL), ('x', 4, 1, 'textkey')", "DROP TABLE ZTAG_OLD",
            ]
        ),
        // A decimal column without its TEXT affinity (the schema edited) holding infinities.
        (
            "decimal-infinity",
            [
                "PRAGMA writable_schema = ON", "UPDATE sqlite_master SET sql = replace(sql, '\"ZBALANCE\" TEXT', '\"ZBALANCE\"') WHERE name = 'ZPERSON'",
                reconnect, "UPDATE ZPERSON SET ZBALANCE = 9e999 WHERE Z_PK = 1", "UPDATE ZPERSON SET ZBALANCE = -9e999, ZSCORE = 9e999, ZBORN = -9e999 WHERE Z_PK = 2",
            ]
        ),
        (
            "history-damage",
            [
                "UPDATE Z_HISTORY_CHANGE SET ZENTITY = 99 WHERE Z_PK = 1", "UPDATE Z_HISTORY_CHANGE SET ZTOMBSTONE = X'00FF' WHERE ZTOMBSTONE IS NOT NULL",
                "UPDATE Z_HISTORY_CHANGE SET ZCOLUMNS = 'ZNOPE,,,ZNAME' WHERE ZCOLUMNS IS NOT NULL", "UPDATE Z_HISTORY_CHANGE SET ZCHANGETYPE = 7 WHERE Z_PK = 2",
                "UPDATE Z_HISTORY_TRANSACTION SET ZTIMESTAMP = 'noon' WHERE Z_PK = 1",
            ]
        ),
    ]

    /// Writes every seed into `directory` (created if needed); returns the files written.
    @discardableResult
    public static func write(to directory: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("strata-store-seeds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let model = StoreFileOracle.model()
        var written: [URL] = []
        func output(_ name: String) -> URL { directory.appendingPathComponent("seed-\(name).sqlite") }

        // The base store: WAL, history, every kind of relationship; checkpointed on close.
        let base = work.appendingPathComponent("base.sqlite")
        try makeStore(at: base, model: model, options: StoreFileOracle.options)
        try compact(base, wal: true)
        try copy(base, to: output("history-wal"), into: &written)
        // The same without WAL (a rollback-journal file) and without history tables.
        let rollback = work.appendingPathComponent("rollback.sqlite")
        try makeStore(at: rollback, model: model, options: [PersistentStoreOption.journalMode: "DELETE"])
        try compact(rollback, wal: false)
        try copy(rollback, to: output("rollback-no-history"), into: &written)
        // Metadata made by another model: the same names, hashes that differ.
        let wrongHashes = work.appendingPathComponent("hashes.sqlite")
        try FileManager.default.copyItem(at: base, to: wrongHashes)
        try rewriteMetadata(of: wrongHashes) { metadata in
            metadata[StoreMetadataKey.modelVersionHash] = "00ff"
            metadata[StoreMetadataKey.entityVersionHashes] = ["Person": "00", "Ghost": "11"]
        }
        try copy(wrongHashes, to: output("metadata-wrong-hashes"), into: &written)
        let notDictionary = work.appendingPathComponent("array.sqlite")
        try FileManager.default.copyItem(at: base, to: notDictionary)
        try withConnection(notDictionary) { connection in
            let plist = try PropertyListSerialization.data(fromPropertyList: ["a", "b"], format: .binary, options: 0)
            try connection.cachedStatement("UPDATE Z_METADATA SET Z_PLIST = ?").execute([.blob(plist)])
        }
        try copy(notDictionary, to: output("metadata-array"), into: &written)
        for damage in damages {
            let file = work.appendingPathComponent("\(damage.name).sqlite")
            try FileManager.default.copyItem(at: base, to: file)
            for batch in damage.sql.split(separator: reconnect) {
                try withConnection(file) { connection in
                    for statement in batch { try connection.execute(statement) }
                }
            }
            try compact(file, wal: true)
            try copy(file, to: output(damage.name), into: &written)
        }
        // Some other program's database, and an empty file.
        let foreign = work.appendingPathComponent("foreign.sqlite")
        try withConnection(foreign, journal: .rollback) { connection in
            try connection.execute("CREATE TABLE ZPERSON (Z_PK INTEGER PRIMARY KEY, ZNAME TEXT)")
            try connection.execute("INSERT INTO ZPERSON VALUES (1, 'not Strata')")
        }
        try compact(foreign, wal: false)
        try copy(foreign, to: output("foreign"), into: &written)
        let empty = output("empty")
        try Data().write(to: empty)
        written.append(empty)
        return written
    }

    /// Creates the base store's contents: two saves and a third that updates and deletes, so
    /// the history has inserts, updates and deletes (with tombstones).
    static func makeStore(at url: URL, model: ManagedObjectModel, options: [String: any Sendable]) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = "seed"
        try context.performAndWait {
            guard let person = model.entitiesByName["Person"], let employee = model.entitiesByName["Employee"],
                let note = model.entitiesByName["Note"], let tag = model.entitiesByName["Tag"]
            else { return }
            let tags = ["red", "green", "blue"].map { label -> ManagedObject in
                let object = ManagedObject(entity: tag, insertInto: context)
                object.setValue(label, forKey: "label")
                return object
            }
            let boss = ManagedObject(entity: person, insertInto: context)
            boss.setValue("Ada", forKey: "name")
            boss.setValue(Int64(41), forKey: "age")
            boss.setValue(2.5, forKey: "score")
            boss.setValue(Date(timeIntervalSinceReferenceDate: 86_400), forKey: "born")
            boss.setValue(Data([1, 2, 3]), forKey: "photo")
            boss.setValue(Decimal(string: "12.34"), forKey: "balance")
            boss.setValue(UUID(uuidString: "00000000-0000-0000-0000-000000000001"), forKey: "key")
            boss.setValue(tags, forKey: "tags")
            var reports: [ManagedObject] = []
            for (index, name) in ["Bo", "Cy"].enumerated() {
                let worker = ManagedObject(entity: employee, insertInto: context)
                worker.setValue(name, forKey: "name")
                worker.setValue(Int64(30 + index), forKey: "age")
                worker.setValue(Int64(1000 * (index + 1)), forKey: "salary")
                worker.setValue(Array(tags.prefix(index + 1).reversed()), forKey: "tags")
                reports.append(worker)
            }
            boss.setValue(reports, forKey: "reports")
            for text in ["first", "second"] {
                let object = ManagedObject(entity: note, insertInto: context)
                object.setValue(text, forKey: "text")
                object.setValue(text == "first" ? boss : reports[0], forKey: "person")
            }
            try context.save()
            reports[1].setValue(false, forKey: "active")
            boss.setValue("Ada L.", forKey: "name")
            try context.save()
            context.delete(tags[2])
            let extra = ManagedObject(entity: note, insertInto: context)
            extra.setValue("third", forKey: "text")
            extra.setValue(reports[1], forKey: "person")
            try context.save()
        }
    }

    /// Opens a raw connection to `url` (no Strata code), runs `body`, closes it.
    static func withConnection(_ url: URL, journal: SQLiteConfiguration.JournalMode = .wal, _ body: (SQLiteConnection) throws -> Void) throws {
        var configuration = SQLiteConfiguration()
        configuration.journalMode = journal
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        // Decimal columns are declared with Strata's collation; VACUUM needs it to exist (no
        // index uses it, so the order it gives does not matter here).
        try connection.registerCollation("STRATA_DECIMAL") { a, b in
            a.lexicographicallyPrecedes(b) ? -1 : a.elementsEqual(b) ? 0 : 1
        }
        try body(connection)
    }

    /// Rewrites `url` with 512-byte pages (VACUUM), in WAL mode or not; on return the file is
    /// complete on its own (checkpointed, no `-wal`).
    static func compact(_ url: URL, wal: Bool) throws {
        try withConnection(url, journal: .rollback) { connection in
            try connection.execute("PRAGMA journal_mode = DELETE")
            try connection.execute("PRAGMA page_size = 512")
            try connection.execute("VACUUM")
            if wal { try connection.execute("PRAGMA journal_mode = WAL") }
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// Decodes the metadata plist of `url`, lets `change` edit it, writes it back.
    static func rewriteMetadata(of url: URL, _ change: (inout [String: Any]) -> Void) throws {
        try withConnection(url) { connection in
            var plist: Data?
            try connection.cachedStatement("SELECT Z_PLIST FROM Z_METADATA").forEachRow { plist = $0.blob(at: 0) }
            guard let plist, var metadata = try PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any] else { return }
            change(&metadata)
            let data = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
            try connection.cachedStatement("UPDATE Z_METADATA SET Z_PLIST = ?").execute([.blob(data)])
        }
    }

    static func copy(_ source: URL, to destination: URL, into written: inout [URL]) throws {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: source, to: destination)
        written.append(destination)
    }
}
