import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A custom stage of a staged migration over a store with external binary data. Core Data's
/// staged migration promises the stage runs with the store open at each model; the notes in
/// ../shared/seeds (000_*.txt) record a Core Data migration that deleted the external data
/// folder and lost users' images — here a stage that deletes and adds values, then fails, must
/// leave every file the store refers to, and one that succeeds must leave every file the new
/// store refers to.
@Suite("Staged migration: external binary data")
struct StagedMigrationExternalDataTests {
    typealias Fixture = ExternalStorageFixture

    /// The photo model, and its next version with an optional `caption` on Photo.
    static func models() -> (ManagedObjectModel, ManagedObjectModel) {
        let next = Fixture.model()
        if let photo = next.entitiesByName["Photo"] {
            photo.properties = photo.properties + [AttributeDescription(name: "caption", type: .string)]
        }
        return (Fixture.model(), next)
    }

    static let options: [String: any Sendable] = [PersistentStoreOption.externalBinaryDataThreshold: Fixture.threshold]

    /// A store at the first version with photos a and b (files), and a stage to the next
    /// version whose will-handler deletes a and adds c; `fails` makes the did-handler throw.
    static func setUp(_ folder: TemporaryDirectory, fails: Bool) throws -> (URL, StagedMigrationManager, ManagedObjectModel, ManagedObjectModel) {
        let (first, second) = models()
        let url = folder.file("Album.sqlite")
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: first)
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            _ = try Fixture.insert(context, [("a", Fixture.blob(1, size: 5_000)), ("b", Fixture.blob(2, size: 5_000))])
            try coordinator.remove(store)
        }
        #expect(Fixture.files(url).count == 2)
        let stage = CustomMigrationStage(
            migratingFrom: ManagedObjectModelReference(model: first, versionChecksum: first.versionChecksum),
            to: ManagedObjectModelReference(model: second, versionChecksum: second.versionChecksum))
        stage.willMigrateHandler = { manager, _ in
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Photo")
                request.predicate = ObjectPredicate(format: "name == %@", "a")
                for photo in try context.fetch(request) { context.delete(photo) }
                let photo = ManagedObject(entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Photo"]), insertInto: context)
                photo.setValue("c", forKey: "name")
                photo.setValue(Fixture.blob(3, size: 5_000), forKey: "image")
                try context.save()
            }
        }
        stage.didMigrateHandler = { _, _ in
            if fails { throw StrataError(code: StrataError.Code.migration, message: "the test's stage fails") }
        }
        return (url, StagedMigrationManager([stage]), first, second)
    }

    static func images(_ url: URL, model: ManagedObjectModel) throws -> [String: Data] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            var result: [String: Data] = [:]
            for photo in try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")) {
                result[photo.value(forKey: "name") as? String ?? "?"] = photo.value(forKey: "image") as? Data
            }
            return result
        }
    }

    @Test("a failing custom stage that deleted a value leaves its file: the store reads every value")
    func failingStageKeepsFiles() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let (url, manager, first, second) = try Self.setUp(folder, fails: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: second)
        #expect(throws: StrataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: Self.options.merging([PersistentStoreOption.stagedMigrationManager: manager]) { $1 })
        }
        #expect(try Self.images(url, model: first) == ["a": Fixture.blob(1, size: 5_000), "b": Fixture.blob(2, size: 5_000)])
        try Fixture.expectConsistent(url, model: first)
    }

    @Test("a custom stage that succeeds brings its new files into the store's folder")
    func succeedingStageLinksNewFiles() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let (url, manager, _, second) = try Self.setUp(folder, fails: false)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: second)
        let store = try coordinator.addPersistentStore(
            type: .sqlite, at: url, options: Self.options.merging([PersistentStoreOption.stagedMigrationManager: manager]) { $1 })
        try coordinator.remove(store)
        #expect(try Self.images(url, model: second) == ["b": Fixture.blob(2, size: 5_000), "c": Fixture.blob(3, size: 5_000)])
        // Reopened once more: a's file was collected as an orphan, nothing else.
        try Fixture.expectConsistent(url, model: second)
        #expect(Fixture.files(url).count == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".strata-migration-") }
        #expect(leftovers.isEmpty)
    }
}
