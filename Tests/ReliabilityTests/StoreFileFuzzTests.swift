import Foundation
import StoreFileFuzzOracle
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

/// The store-file fuzzer's corpus (Fuzz/corpus/store-files) replayed through its oracle, and the
/// damage the fuzzer found, rebuilt with SQL. Core Data reports a store file it cannot use as an
/// error when the store is added or used — `NSPersistentStoreInvalidTypeError` /
/// `NSSQLiteError` for a damaged or foreign file, `NSPersistentStoreIncompatibleVersionHashError`
/// for another model — never by crashing; Strata's errors name the file (`url`, and the
/// description) and what was wrong.
@Suite("Store-file fuzz corpus and damaged stores")
struct StoreFileFuzzTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/store-files")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { $0.hasSuffix(".sqlite") }.sorted()
    }

    /// The outcome of one corpus file, through the fuzzer's oracle.
    static func replay(_ name: String, in directory: TemporaryDirectory, model: ManagedObjectModel) throws -> Result<StoreFileOracle.Outcome, OracleViolation> {
        let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent(name)))
        return StoreFileOracle.check(bytes, file: directory.file("store.sqlite"), model: model)
    }

    @Test("Every corpus input (seeds and saved crashes) opens or is refused with an error naming the file; nothing traps")
    func corpusReplays() throws {
        let names = Self.inputs
        #expect(names.count >= 20)
        let directory = TemporaryDirectory(prefix: "strata-store-fuzz")
        let model = StoreFileOracle.model()
        for name in names {
            if case .failure(let violation) = try Self.replay(name, in: directory, model: model) {
                Issue.record("\(name): \(violation)")
            }
        }
    }

    /// Core Data: a zero-length file is a new, empty store; a SQLite file without its metadata
    /// table is not a Core Data store (`NSPersistentStoreInvalidTypeError`); metadata it cannot
    /// read is a damaged store; another model's hashes are `NSPersistentStoreIncompatibleVersionHashError`.
    @Test(
        "The seeds do what they were made for: real stores open and read, damaged metadata and foreign files are refused",
        arguments: [
            ("seed-history-wal.sqlite", nil), ("seed-rollback-no-history.sqlite", nil), ("seed-empty.sqlite", nil),
            ("seed-foreign.sqlite", "not created by Strata"), ("seed-metadata-garbage.sqlite", "metadata is missing or damaged"),
            ("seed-metadata-text.sqlite", "metadata is missing or damaged"), ("seed-metadata-empty-blob.sqlite", "metadata is missing or damaged"),
            ("seed-metadata-array.sqlite", "metadata is missing or damaged"), ("seed-metadata-missing-row.sqlite", "metadata is missing or damaged"),
            ("seed-metadata-wrong-hashes.sqlite", "incompatible"),
            // Found by the fuzzer: a metadata dictionary's marker turned into a set's crashed
            // Foundation's PropertyListSerialization (Support/PropertyListReader.swift).
            ("crash-e8fccfbb2dc15d76.sqlite", "metadata is missing or damaged"),
        ] as [(String, String?)])
    func seedOutcomes(name: String, refusal: String?) throws {
        let directory = TemporaryDirectory(prefix: "strata-store-seed")
        let outcome = try Self.replay(name, in: directory, model: StoreFileOracle.model())
        switch (outcome, refusal) {
        case (.success(.refused(let code, let message)), let expected?):
            #expect(code == StrataError.Code.persistentStoreOpen)
            #expect(message.contains(expected), "\(message)")
        case (.success(.opened(let objects, let failures)), nil):
            #expect(failures.isEmpty, "\(failures)")
            #expect(objects == (name == "seed-empty.sqlite" ? 0 : 8))
        default:
            Issue.record("\(name): \(outcome)")
        }
    }

    /// A copy of the real WAL seed store at `url`, damaged by `sql` run on a plain connection.
    static func damagedStore(at url: URL, _ sql: [String]) throws {
        try FileManager.default.copyItem(at: corpus.appendingPathComponent("seed-history-wal.sqlite"), to: url)
        let connection = try SQLiteConnection(path: url.path)
        for statement in sql { try connection.execute(statement) }
    }

    /// Found by the store-file fuzzer (`seed-primarykey-extreme-max.sqlite`): a `Z_MAX` that
    /// overflowed on `Z_MAX + n` (SQLite then gives a real) trapped in the key arithmetic; a
    /// missing `Z_PRIMARYKEY` row silently handed out keys 0, -1…. Core Data reports a store
    /// whose key table it cannot use as an `NSSQLiteError` on save; here a `StrataError` 134180
    /// names the file, the table and the entity, and nothing is written.
    @Test(
        "A damaged Z_PRIMARYKEY is a clear error on save, not a trap or keys 0, -1",
        arguments: [
            ("DELETE FROM Z_PRIMARYKEY", "it has no row for Z_ENT"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775807", "Z_MAX became 9.2"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = -1e300", "Z_MAX became -1e+300"),
            ("UPDATE Z_PRIMARYKEY SET Z_MAX = -5", "Z_MAX became -4"),
        ])
    func damagedKeyTable(sql: String, detail: String) throws {
        let directory = TemporaryDirectory(prefix: "strata-store-keys")
        let url = directory.file("store.sqlite")
        try Self.damagedStore(at: url, [sql])
        let model = StoreFileOracle.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: StoreFileOracle.options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let tag = ManagedObject(entity: try #require(model.entitiesByName["Tag"]), insertInto: context)
            tag.setValue("new", forKey: "label")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                return error.code == StrataError.Code.sqlite && error.url == url && error.description.contains(url.path)
                    && error.message.contains("Z_PRIMARYKEY is damaged for entity 'Tag'") && error.message.contains(detail)
            }
            context.rollback()
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 2)
        }
    }

    /// Found while reviewing what the fuzzer's values reach (`seed-decimal-infinity.sqlite`): a
    /// decimal column whose declared type lost its TEXT affinity keeps a REAL, and
    /// `Decimal(Double.infinity)` traps in Foundation. Core Data never traps on a value it
    /// reads back; Strata reads a stored value it cannot decode as nil
    /// (`AttributeCodec.decode`), so the object fires and the rest of it reads.
    @Test("An infinite REAL in a decimal column reads as nil, not a trap")
    func infiniteDecimal() throws {
        let directory = TemporaryDirectory(prefix: "strata-store-decimal")
        let url = directory.file("store.sqlite")
        try Self.damagedStore(
            at: url,
            [
                "PRAGMA writable_schema = ON", "UPDATE sqlite_master SET sql = replace(sql, '\"ZBALANCE\" TEXT', '\"ZBALANCE\"') WHERE name = 'ZPERSON'",
            ])
        // The edited schema is seen by a new connection only.
        try SQLiteConnection(path: url.path).execute("UPDATE ZPERSON SET ZBALANCE = 9e999, ZSCORE = -9e999")
        let model = StoreFileOracle.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: StoreFileOracle.options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.count == 3)
            for person in people {
                #expect(person.value(forKey: "balance") == nil)
                #expect(person.value(forKey: "score") as? Double == -.infinity)
                #expect(person.value(forKey: "name") is String)
            }
        }
    }

    /// Found by replaying hand-made damage through the fuzzer (`seed-version-at-maximum.sqlite`):
    /// a row whose `Z_OPT` is `Int64.max` trapped on the next version (`baseVersion + 1`) when
    /// the object was saved. Core Data reports a store it cannot update as an `NSSQLiteError`;
    /// here the save throws a `StrataError` 134180 naming the file, the entity and the row, and
    /// the row is left as it was.
    @Test("A row version at Int64.max is a clear error on save, not an overflow trap")
    func versionAtMaximum() throws {
        let directory = TemporaryDirectory(prefix: "strata-store-version")
        let url = directory.file("store.sqlite")
        try Self.damagedStore(at: url, ["UPDATE ZNOTE SET Z_OPT = 9223372036854775807"])
        let model = StoreFileOracle.model()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: StoreFileOracle.options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            let note = try #require(notes.first)
            note.setValue("changed", forKey: "text")
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                return error.code == StrataError.Code.sqlite && error.url == url && error.description.contains(url.path)
                    && error.message.contains("'Note'") && error.message.contains("Z_OPT 9223372036854775807")
            }
        }
        var versions: [Int64] = []
        try SQLiteConnection(path: url.path).cachedStatement("SELECT Z_OPT FROM ZNOTE").forEachRow { versions.append($0.int64(at: 0)) }
        #expect(versions.allSatisfy { $0 == Int64.max })
    }
}
