import Foundation
import Strata
import StrataTestSupport
import Testing

/// In-place lightweight migration of SQLite stores. Core Data's "Lightweight Migration" guide
/// (Core Data Model Versioning and Data Migration Programming Guide): with
/// `NSMigratePersistentStoresAutomaticallyOption` and `NSInferMappingModelAutomaticallyOption`,
/// adding a store made with an older model version migrates it in place (for SQLite, without
/// loading the data into memory): renamed properties keep their values, new attributes take
/// their defaults, an optional attribute made required takes its default where it had none,
/// relationships keep their members when they change between to-one and to-many.
@Suite("Migration: in place in SQLite")
struct InPlaceMigrationTests {
    static func int(_ value: Any?) -> Int64? {
        switch value {
        case let v as Int16: return Int64(v)
        case let v as Int32: return Int64(v)
        case let v as Int64: return v
        case let v as Int: return Int64(v)
        default: return nil
        }
    }

    static func primaryKey(_ object: ManagedObject) -> Int64? {
        Int64(object.objectID.uriRepresentation().lastPathComponent.dropFirst())
    }

    @Test("v1 → v2: renamed, widened, defaulted, added and removed attributes; to-one → to-many; added and removed entities")
    func shopForward() throws {
        let scratch = ModelFileScratch()
        let bundle = try ShopModels.bundle(in: scratch, current: 2)
        let v1 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 1.xcdatamodel"))
        let v2 = try ManagedObjectModel(contentsOf: bundle)
        let url = scratch.directory.file("shop.sqlite")
        try ShopModels.seedV1(v1, at: url)
        try MigrationHarness.with(v2, at: url, options: MigrationHarness.automatic) { context in
            let items = try MigrationHarness.objects("Item", in: context, sortedBy: "count")
            #expect(items.count == 3)
            #expect(items.map { $0.value(forKey: "name") as? String } == ["lamp", "untitled", "desk"])
            #expect(items.map { Self.int($0.value(forKey: "count")) } == [2, 7, 32000])
            #expect(items.map { $0.value(forKey: "price") as? Double } == [1999, nil, 250])
            #expect(items.map { $0.value(forKey: "weight") as? Double } == [1.5, nil, 30.25])
            #expect(items.map { Self.int($0.value(forKey: "rating")) } == [3, 3, 3])
            #expect(items.allSatisfy { $0.value(forKey: "memo") == nil })
            #expect(items.map { MigrationHarness.names($0, "owners", "name") } == [["Ann"], ["Bob"], []])
            let people = try MigrationHarness.objects("Person", in: context, sortedBy: "name")
            #expect(people.map { MigrationHarness.names($0, "items", "name") } == [["lamp"], ["untitled"]])
            #expect(try MigrationHarness.objects("Label", in: context).isEmpty)
            // New objects get keys past the migrated ones.
            let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.mutableSetValue(forKey: "owners").add(people[0])
            try context.save()
            #expect((Self.primaryKey(item) ?? 0) > 3)
            #expect(MigrationHarness.names(people[0], "items", "name") == ["lamp", "untitled"])
        }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("v1 → v2 → v3 and v1 → v3: to-many back to to-one keeps the member")
    func shopBack() throws {
        let scratch = ModelFileScratch()
        let bundle = try ShopModels.bundle(in: scratch, current: 3)
        let v1 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 1.xcdatamodel"))
        let v2 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 2.xcdatamodel"))
        let v3 = try ManagedObjectModel(contentsOf: bundle)
        let stepped = scratch.directory.file("stepped.sqlite")
        let direct = scratch.directory.file("direct.sqlite")
        try ShopModels.seedV1(v1, at: stepped)
        try ShopModels.seedV1(v1, at: direct)
        try MigrationHarness.with(v2, at: stepped, options: MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [v1]]) { a, _ in a }) { _ in }
        for url in [stepped, direct] {
            try MigrationHarness.with(v3, at: url, options: MigrationHarness.automatic) { context in
                let items = try MigrationHarness.objects("Item", in: context, sortedBy: "count")
                #expect(items.map { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String } == ["Ann", "Bob", nil])
                #expect(items.map { $0.value(forKey: "name") as? String } == ["lamp", "untitled", "desk"])
                let people = try MigrationHarness.objects("Person", in: context, sortedBy: "name")
                #expect(people.map { MigrationHarness.names($0, "items", "name") } == [["lamp"], ["untitled"]])
            }
        }
    }

    @Test("the persistent history is still readable after a migration, and keeps recording")
    func history() throws {
        let scratch = ModelFileScratch()
        let bundle = try ShopModels.bundle(in: scratch, current: 2)
        let v1 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 1.xcdatamodel"))
        let v2 = try ManagedObjectModel(contentsOf: bundle)
        let url = scratch.directory.file("history.sqlite")
        let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]
        try ShopModels.seedV1(v1, at: url, options: tracking)
        try MigrationHarness.with(v2, at: url, options: MigrationHarness.automatic.merging(tracking) { a, _ in a }) { context in
            func transactions() throws -> [PersistentHistoryTransaction] {
                let result = try #require(try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil)) as? PersistentHistoryResult)
                return try #require(result.result as? [PersistentHistoryTransaction])
            }
            let before = try transactions()
            #expect(before.count == 1)
            let changes = before.first?.changes ?? []
            // The Obsolete row's change went with its entity; the others name the new model's entities.
            #expect(changes.count == 5)
            #expect(Set(changes.map(\.changedObjectID.entity.name)) == ["Item", "Person"])
            let items = try MigrationHarness.objects("Item", in: context)
            #expect(Set(changes.filter { $0.changedObjectID.entity.name == "Item" }.map(\.changedObjectID)) == Set(items.map(\.objectID)))
            let label = try EntityDescription.insertNewObject(forEntityName: "Label", into: context)
            label.setValue("new", forKey: "text")
            try context.save()
            #expect(try transactions().count == 2)
        }
    }

    @Test("a store that keeps a history, opened without tracking (read-only, as in Core Data), is not migrated")
    func historyWithoutTracking() throws {
        let scratch = ModelFileScratch()
        let bundle = try ShopModels.bundle(in: scratch, current: 2)
        let v1 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 1.xcdatamodel"))
        let url = scratch.directory.file("untracked.sqlite")
        try ShopModels.seedV1(v1, at: url, options: [PersistentStoreOption.persistentHistoryTracking: true])
        let error = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(try ManagedObjectModel(contentsOf: bundle), at: url, options: MigrationHarness.automatic) }
        #expect(error?.message.contains("never migrated") == true)
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: try PersistentStoreCoordinator.metadataForPersistentStore(at: url)))
    }
}
