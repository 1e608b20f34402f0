import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// External binary storage across migrations (issue #16, item 7), with the real
/// `strata-samples/Album.xcdatamodeld` (Photo.data allows external storage; Album 2 adds
/// `caption` and `rating`). Core Data's fact: a lightweight migration must keep every value
/// ("Core Data can … migrate the data"; Core Data Model Versioning and Data Migration
/// Programming Guide, "Lightweight Migration") — users reported that a migration dropped and
/// re-created the `_EXTERNAL_DATA` folder and their externally stored images were lost, which
/// Strata's design rules out (docs/models-and-migration.md, "External binary storage").
@Suite("External binary storage: migrations")
struct ExternalStorageMigrationTests {
    typealias Fixture = ExternalStorageFixture

    static let bundle = ModelFileCorpus.url("strata-samples/Album.xcdatamodeld")
    static func version(_ name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: bundle.appendingPathComponent(name + ".xcdatamodel"))
    }

    static let values = ["large": Fixture.blob(1, size: 150_000), "other": Fixture.blob(2, size: 110_000), "small": Fixture.blob(3, size: 2_000)]

    /// A store of Album's first version holding `values`, closed; its URL.
    static func firstVersionStore(_ directory: TemporaryDirectory, threshold: Int? = nil) throws -> URL {
        let url = directory.file("Album.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try version("Album"))
        var options: [String: any Sendable] = [:]
        if let threshold { options[PersistentStoreOption.externalBinaryDataThreshold] = threshold }
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for (name, data) in values {
                let photo = try EntityDescription.insertNewObject(forEntityName: "Photo", into: context)
                photo.setValue(name, forKey: "name")
                photo.setValue(data, forKey: "data")
            }
            try context.save()
        }
        try coordinator.remove(store)
        return url
    }

    /// The photos' data by name, read with `model` (which must match the store).
    static func read(_ url: URL, model: ManagedObjectModel, options: [String: any Sendable] = [:]) throws -> [String: Data?] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var result: [String: Data?] = [:]
            for photo in try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")) {
                result[photo.value(forKey: "name") as? String ?? ""] = photo.value(forKey: "data") as? Data
            }
            return result
        }
    }

    @Test("a lightweight migration Album → Album 2 keeps every externally stored value and every file")
    func lightweight() throws {
        let directory = TemporaryDirectory()
        let url = try Self.firstVersionStore(directory)
        let first = try Self.version("Album")
        let files = Fixture.files(url)
        #expect(files.count == 2)
        let second = try Self.version("Album 2")
        let options: [String: any Sendable] = [
            PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true,
            PersistentStoreOption.migrationSourceModels: [first],
        ]
        #expect(try Self.read(url, model: second, options: options) == Self.values)
        #expect(Fixture.files(url) == files)
        try Fixture.expectConsistent(url, model: second)
        #expect(try Self.read(url, model: second) == Self.values)
    }

    @Test("a migration into a new file beside the store, with the files linked in before the rename, keeps every value")
    func copyThenRenameWithTheHook() throws {
        let directory = TemporaryDirectory()
        // Values inline in the old store (a large threshold), in files in the new one.
        let url = try Self.firstVersionStore(directory, threshold: 1_000_000)
        #expect(Fixture.files(url).isEmpty)
        let first = try Self.version("Album")
        let second = try Self.version("Album 2")
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: first, destinationModel: second)
        let temporary = MigrationManager.inPlaceMigrationURL(for: url)
        try FileManager.default.createDirectory(at: temporary.deletingLastPathComponent(), withIntermediateDirectories: true)
        let options: [String: any Sendable] = [PersistentStoreOption.externalBinaryDataThreshold: 1_000, PersistentStoreOption.journalMode: "DELETE"]
        try MigrationManager(sourceModel: first, destinationModel: second).migrateStore(
            from: url, type: .sqlite, options: [PersistentStoreOption.externalBinaryDataThreshold: 1_000_000], mapping: mapping, to: temporary, type: .sqlite,
            options: options)
        #expect(Fixture.files(temporary).count == 3)
        try SQLiteStore.linkExternalData(ofStoreAt: temporary, intoStoreAt: url)
        try? FileManager.default.removeItem(atPath: url.path + "-wal")
        try? FileManager.default.removeItem(atPath: url.path + "-shm")
        #expect(rename(temporary.path, url.path) == 0)
        try SQLiteStore.destroyFiles(at: temporary)
        #expect(!FileManager.default.fileExists(atPath: temporary.deletingLastPathComponent().appendingPathComponent(".Album_SUPPORT").path))
        #expect(try Self.read(url, model: second) == Self.values)
        try Fixture.expectConsistent(url, model: second)
    }

    @Test("MigrationManager.migrateStoreInPlace links the new store's files into the store's folder before its rename")
    func customInPlaceNeedsTheHook() throws {
        let directory = TemporaryDirectory()
        let url = try Self.firstVersionStore(directory, threshold: 1_000_000)
        let first = try Self.version("Album")
        let second = try Self.version("Album 2")
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: first, destinationModel: second)
        let options: [String: any Sendable] = [PersistentStoreOption.externalBinaryDataThreshold: 1_000]
        try MigrationManager(sourceModel: first, destinationModel: second).migrateStoreInPlace(at: url, options: options, mapping: mapping)
        let read = try Self.read(url, model: second, options: options)
        #expect(read == Self.values)
    }
}
