import Foundation
import Strata
import StrataTestSupport
import Testing

/// External binary storage and whole store files (issue #16, item 7): the coordinator's
/// `replacePersistentStore`, `destroyPersistentStore` and `migratePersistentStore` move the
/// `.<StoreName>_SUPPORT` folder with the database. Core Data's facts: "replacePersistentStore
/// … Replaces one persistent store with another", `destroyPersistentStore(at:type:options:)`
/// "Deletes (or truncates) the target persistent store" and `migratePersistentStore(_:to:options:
/// type:)` "Moves a persistent store to a new location, changing the storage type if necessary"
/// and removes the old store from the coordinator (NSPersistentStoreCoordinator documentation);
/// the external data files live beside the store and belong to it (Ask Apple 2022), and a real
/// model with external storage (`strata-samples/Album.xcdatamodeld`) stores its values as well.
@Suite("External binary storage: store files")
struct ExternalStorageStoreFileTests {
    typealias Fixture = ExternalStorageFixture

    @Test("replacePersistentStore copies the source's files; the source stays intact; destroy removes database and folder")
    func replaceAndDestroy() throws {
        let source = try Fixture.stack()
        let values = ["a": Fixture.blob(1, size: 3_000), "b": Fixture.blob(2, size: 10)]
        try Fixture.insert(source.newContext(), values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        let target = TemporaryDirectory()
        let destination = target.file("Copy.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: source.model)
        // The destination holds another store first: its rows and files are replaced.
        try Fixture.insert(Self.context(coordinator, destination), [("old", Fixture.blob(3, size: 3_000))])
        for store in coordinator.persistentStores { try coordinator.remove(store) }
        try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source.storeURL, type: .sqlite)
        let context = try Self.context(coordinator, destination)
        let read = try context.performAndWait {
            try Dictionary(uniqueKeysWithValues: context.fetch(FetchRequest<ExternalPhoto>(entityName: "Photo")).map { ($0.name, $0.image) })
        }
        #expect(read == ["a": values["a"], "b": values["b"]])
        try Fixture.expectConsistent(destination)  // the old store's file was collected on open
        try Fixture.expectConsistent(source.storeURL)
        #expect(try Fixture.images(source) == ["a": values["a"], "b": values["b"]])

        try coordinator.destroyPersistentStore(at: destination, type: .sqlite)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: target.file(".Copy_SUPPORT").path))
        #expect(Fixture.files(source.storeURL).count == 1)
    }

    @Test("migratePersistentStore copies the store and its files to the new URL and swaps the stores")
    func migrate() throws {
        let stack = try Fixture.stack()
        let value = Fixture.blob(1, size: 5_000)
        try Fixture.insert(stack.newContext(), [("p", value)])
        let store = try #require(stack.coordinator.persistentStores.first)
        let destination = stack.directory.file("Moved/Moved.sqlite")
        let moved = try stack.coordinator.migratePersistentStore(store, to: destination, type: .sqlite)
        #expect(stack.coordinator.persistentStores.count == 1)
        #expect(moved.url == destination)
        #expect(try Fixture.images(stack) == ["p": value])
        #expect(Fixture.files(destination) == [Fixture.sha256(value)])
        try Fixture.expectConsistent(destination)
    }

    @Test("replacing from something that is not a Strata store fails and leaves the destination alone")
    func replaceFromGarbage() throws {
        let stack = try Fixture.stack()
        try Fixture.insert(stack.newContext(), [("p", Fixture.blob(1, size: 2_000))])
        let garbage = stack.directory.file("garbage.sqlite")
        try Data("not a database".utf8).write(to: garbage)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        #expect(throws: StrataError.self) {
            try stack.coordinator.replacePersistentStore(at: stack.storeURL, withPersistentStoreFrom: garbage, type: .sqlite)
        }
        try stack.reopen()
        #expect(try Fixture.images(stack) == ["p": Fixture.blob(1, size: 2_000)])
    }

    @Test("Album.xcdatamodeld, first version: Photo.data (Allows External Storage) keeps large values in files")
    func albumModel() throws {
        let bundle = ModelFileCorpus.url("strata-samples/Album.xcdatamodeld")
        let model = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Album.xcdatamodel"))
        let attribute = try #require(model.entitiesByName["Photo"]?.attributesByName["data"])
        #expect(attribute.allowsExternalBinaryDataStorage)
        let stack = try TestStack(model: model, recordsSQL: false)
        let large = Fixture.blob(1, size: 150_000)
        let small = Fixture.blob(2, size: 1_000)
        let context = stack.newContext()
        try context.performAndWait {
            for (name, data) in [("large", large), ("small", small)] {
                let photo = try EntityDescription.insertNewObject(forEntityName: "Photo", into: context)
                photo.setValue(name, forKey: "name")
                photo.setValue(data, forKey: "data")
            }
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(large)])
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let photos = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Photo"))
            let read = Dictionary(uniqueKeysWithValues: photos.map { ($0.value(forKey: "name") as? String ?? "", $0.value(forKey: "data") as? Data) })
            #expect(read == ["large": large, "small": small])
        }
        try Fixture.expectConsistent(stack.storeURL, model: model)
    }

    /// Core Data's bug this guards against: a migration that dropped and re-created the external
    /// data folder lost users' images. A store opened with another model version (here without
    /// migration options, so the open fails) must leave every file in place: orphans are only
    /// collected under the store's own schema.
    @Test("opening an Album store with Album 2 (an incompatible version, no migration) touches no file")
    func albumOtherVersionTouchesNothing() throws {
        let bundle = ModelFileCorpus.url("strata-samples/Album.xcdatamodeld")
        let first = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Album.xcdatamodel"))
        let second = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Album 2.xcdatamodel"))
        let stack = try TestStack(model: first, recordsSQL: false)
        let values = [Fixture.blob(1, size: 120_000), Fixture.blob(2, size: 130_000)]
        let context = stack.newContext()
        try context.performAndWait {
            for (index, data) in values.enumerated() {
                let photo = try EntityDescription.insertNewObject(forEntityName: "Photo", into: context)
                photo.setValue("p\(index)", forKey: "name")
                photo.setValue(data, forKey: "data")
            }
            try context.save()
        }
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let files = Fixture.files(stack.storeURL)
        #expect(files.count == 2)
        let other = PersistentStoreCoordinator(managedObjectModel: second)
        #expect(throws: StrataError.self) { try other.addPersistentStore(type: .sqlite, at: stack.storeURL) }
        #expect(Fixture.files(stack.storeURL) == files)
        try stack.reopen()
        try Fixture.expectConsistent(stack.storeURL, model: first)
    }

    static func context(_ coordinator: PersistentStoreCoordinator, _ url: URL) throws -> ManagedObjectContext {
        if coordinator.persistentStore(for: url) == nil {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.externalBinaryDataThreshold: Fixture.threshold])
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }
}
