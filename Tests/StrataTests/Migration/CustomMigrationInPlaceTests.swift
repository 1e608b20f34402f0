import Foundation
import Strata
import StrataTestSupport
import Testing

/// `migrateStoreInPlace(at:type:options:mapping:)`: a new store beside the old one, renamed over
/// it. Core Data has no such call (apps migrate to a new URL and then call the coordinator's
/// `replacePersistentStore(at:…)`, documented for NSPersistentStoreCoordinator); what these
/// tests hold it to is the brief's guarantee: at every instant the path holds the complete old
/// store or the complete new one, and a failure leaves the old one as it was.
@Suite("Custom migration: in place")
struct CustomMigrationInPlaceTests {
    static func names(model: ManagedObjectModel, at url: URL, key: String) throws -> [String] {
        try MigrationFixture.read(model: model, at: url) { context in
            try MigrationFixture.fetch("Person", in: context, sortedBy: key).compactMap { $0.value(forKey: key) as? String }
        }
    }

    @Test func replacesTheStore() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let url = folder.file("Notes.sqlite")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: url, CustomMigrationPolicyTests.fillPeople)
        // A leftover of an interrupted attempt is cleared.
        let leftover = MigrationManager.inPlaceMigrationURL(for: url)
        try FileManager.default.createDirectory(at: leftover.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("half a store".utf8).write(to: leftover)

        // Half-way through, the path still holds the whole old store.
        let manager = MigrationManager(sourceModel: v1, destinationModel: CustomMigrationPolicyTests.peopleV2())
        let snapshot = folder.file("snapshot.sqlite")
        manager.progressHandler = { value in
            if value >= 0.5, !FileManager.default.fileExists(atPath: snapshot.path) {
                try? FileManager.default.copyItem(at: url, to: snapshot)
            }
        }
        try manager.migrateStoreInPlace(at: url, mapping: CustomMigrationPolicyTests.splitMapping())

        #expect(try Self.names(model: v1, at: snapshot, key: "fullName") == ["Ada Lovelace", "Grace Brewster Hopper", "Plato"])
        #expect(try Self.names(model: CustomMigrationPolicyTests.peopleV2(), at: url, key: "first") == ["Ada", "Grace", "Plato"])
        #expect(!MigrationFixture.anyStoreFileExists(at: MigrationManager.inPlaceMigrationURL(for: url)))
        // The new store opens read-write with the new model and takes its changes.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: CustomMigrationPolicyTests.peopleV2())
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        try coordinator.remove(store)
    }

    @Test func failureLeavesTheOriginal() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let url = folder.file("People.sqlite")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: url, CustomMigrationFailureTests.fill(5, bad: 3))
        let manager = MigrationManager(sourceModel: v1, destinationModel: CustomMigrationFailureTests.v2())
        let error = #expect(throws: StrataError.self) {
            try manager.migrateStoreInPlace(at: url, mapping: CustomMigrationFailureTests.mapping(ThrowingPolicy.self))
        }
        #expect(error?.code == StrataError.Code.entityMigrationPolicy)
        #expect(try Self.names(model: v1, at: url, key: "fullName").count == 5)
        #expect(!MigrationFixture.anyStoreFileExists(at: MigrationManager.inPlaceMigrationURL(for: url)))
    }

    /// A store another coordinator keeps open (its log not empty) is refused, untouched.
    @Test func storeInUseIsRefused() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let url = folder.file("Busy.sqlite")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: url, CustomMigrationFailureTests.fill(2))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v1)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try MigrationFixture.insert("Person", ["fullName": "Late Comer"], into: context)
            try context.save()
        }
        let manager = MigrationManager(sourceModel: v1, destinationModel: CustomMigrationFailureTests.v2())
        let error = #expect(throws: StrataError.self) {
            try manager.migrateStoreInPlace(at: url, mapping: CustomMigrationFailureTests.mapping())
        }
        #expect(error?.code == StrataError.Code.migrationManagerSourceStore)
        let count = try context.performAndWait { try MigrationFixture.fetch("Person", in: context).count }
        #expect(count == 3)
    }
}
