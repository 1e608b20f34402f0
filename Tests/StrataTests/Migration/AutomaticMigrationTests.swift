import Foundation
import Strata
import StrataLocks
import StrataTestSupport
import Testing

/// Migration when a store is added, and the dry run. Core Data: `NSPersistentStoreDescription`'s
/// `shouldMigrateStoreAutomatically` and `shouldInferMappingModelAutomatically` are true by
/// default and become `NSMigratePersistentStoresAutomaticallyOption` /
/// `NSInferMappingModelAutomaticallyOption`; without them (or with `addPersistentStore` and no
/// options) a store of another model version fails with `NSPersistentStoreIncompatibleVersionHashError`
/// (134100); a mapping that cannot be inferred fails with `NSMigrationMissingMappingModelError`
/// (134140) and leaves the store as it was.
@Suite("Migration: automatic on load, refusals and the dry run")
struct AutomaticMigrationTests {
    let scratch = ModelFileScratch()

    /// The Shop bundle (current v2), its v1 model and a seeded v1 store.
    func shop() throws -> (bundle: URL, v1: ManagedObjectModel, url: URL) {
        let bundle = try ShopModels.bundle(in: scratch, current: 2)
        let v1 = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent("Shop 1.xcdatamodel"))
        let url = scratch.directory.file("shop.sqlite")
        try ShopModels.seedV1(v1, at: url)
        return (bundle, v1, url)
    }

    func expectUnchanged(_ v1: ManagedObjectModel, at url: URL) throws {
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        try MigrationHarness.with(v1, at: url) { context throws in
            #expect(try MigrationHarness.objects("Item", in: context).count == 3)
            #expect(try MigrationHarness.objects("Obsolete", in: context).count == 1)
        }
    }

    @Test("a container loading an older store migrates it (both flags true by default) and its data is there")
    func container() throws {
        let (bundle, _, url) = try shop()
        let container = PersistentContainer(name: "Shop", managedObjectModel: try ManagedObjectModel(contentsOf: bundle))
        let description = PersistentStoreDescription(url: url)
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.viewContext
        try context.performAndWait {
            let items = try MigrationHarness.objects("Item", in: context, sortedBy: "count")
            #expect(items.map { $0.value(forKey: "name") as? String } == ["lamp", "untitled", "desk"])
        }
    }

    @Test("flags off, or addPersistentStore without the options: the incompatible-model error (134080, underlying 134100), store unchanged")
    func flagsOff() throws {
        let (bundle, v1, url) = try shop()
        let v2 = try ManagedObjectModel(contentsOf: bundle)
        let container = PersistentContainer(name: "Shop", managedObjectModel: v2)
        let description = PersistentStoreDescription(url: url)
        description.shouldMigrateStoreAutomatically = false
        container.persistentStoreDescriptions = [description]
        let error = #expect(throws: StrataError.self) { try container.loadPersistentStores() }
        #expect(error?.code == StrataError.Code.persistentStoreOpen)
        #expect(error?.underlyingErrors.first?.code == StrataError.Code.persistentStoreIncompatibleVersionHash)
        let plain = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(try ManagedObjectModel(contentsOf: bundle), at: url) }
        #expect(plain?.underlyingErrors.first?.code == StrataError.Code.persistentStoreIncompatibleVersionHash)
        try expectUnchanged(v1, at: url)
    }

    @Test("no candidate model matches the store: 134080 (underlying 134100) saying no source model was found, then why the models differ")
    func noSourceModel() throws {
        let (_, v1, url) = try shop()
        let alone = try MigrationHarness.model(ShopModels.v2, scratch: scratch, name: "Alone")
        let error = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(alone, at: url, options: MigrationHarness.automatic) }
        #expect(error?.code == StrataError.Code.persistentStoreOpen)
        #expect(error?.message.contains("No source model was found") == true)
        #expect(error?.message.contains("incompatible") == true)
        #expect(error?.underlyingErrors.map(\.code) == [StrataError.Code.persistentStoreIncompatibleVersionHash, StrataError.Code.migrationMissingSourceModel])
        #expect(error?.underlyingErrors.first?.code == StrataError.Code.persistentStoreIncompatibleVersionHash)
        try expectUnchanged(v1, at: url)
        // Given as a migration source model, the same v1 (built from the file, not the bundle) is found.
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [v1]]) { a, _ in a }
        try MigrationHarness.with(alone, at: url, options: options) { context throws in
            #expect(try MigrationHarness.objects("Item", in: context).count == 3)
        }
    }

    @Test("a read-only store is never migrated: a clear error, store unchanged")
    func readOnly() throws {
        let (bundle, v1, url) = try shop()
        var options = MigrationHarness.automatic
        options[PersistentStoreOption.readOnly] = true
        let error = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(try ManagedObjectModel(contentsOf: bundle), at: url, options: options) }
        #expect(error?.message.contains("read-only store is never migrated") == true)
        try expectUnchanged(v1, at: url)
    }

    @Test("a change that cannot be inferred (String → Integer 32): 134140 with the inference error (134190) under it, store unchanged")
    func notInferable() throws {
        let (_, v1, url) = try shop()
        let changed = try MigrationHarness.model(
            ShopModels.v1.replacingOccurrences(of: #"<attribute name="note" optional="YES" attributeType="String"/>"#, with: #"<attribute name="note" optional="YES" attributeType="Integer 32"/>"#),
            scratch: scratch, name: "Changed")
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [v1]]) { a, _ in a }
        let error = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(changed, at: url, options: options) }
        #expect(error?.code == StrataError.Code.migrationMissingMappingModel)
        #expect(error?.underlyingErrors.first?.code == StrataError.Code.inferredMappingModel)
        #expect(error?.message.contains("Item.note changed type from string to integer32") == true)
        try expectUnchanged(v1, at: url)
    }

    @Test("the dry run reports each entity's mapping, property changes and row counts, and leaves the store untouched")
    func dryRun() throws {
        let (bundle, v1, url) = try shop()
        let v2 = try ManagedObjectModel(contentsOf: bundle)
        let report = try PersistentStoreCoordinator.dryRunMigration(ofStoreAt: url, to: v2)
        #expect(report.isMigrationNeeded)
        let item = try #require(report.change(forDestinationEntity: "Item"))
        #expect(item.mappingType == .transform && item.rowCountBefore == 3 && item.rowCountAfter == 3)
        #expect(item.propertyChanges.contains("renamed title → name"))
        #expect(item.propertyChanges.contains("count: integer16 → integer64"))
        #expect(item.propertyChanges.contains("owners: to-one → to-many"))
        #expect(item.propertyChanges.contains("added rating") && item.propertyChanges.contains("removed note"))
        // Person.items has a new inverse (owners), so Person changed too.
        #expect(report.change(forDestinationEntity: "Person")?.mappingType == .transform)
        #expect(report.change(forDestinationEntity: "Label")?.mappingType == .add)
        let removed = try #require(report.entityChanges.first { $0.sourceEntityName == "Obsolete" })
        #expect(removed.mappingType == .remove && removed.rowCountBefore == 1 && removed.rowCountAfter == 0)
        try expectUnchanged(v1, at: url)
        // The store made with the destination model needs nothing.
        try MigrationHarness.with(v2, at: url, options: MigrationHarness.automatic) { _ in }
        #expect(try PersistentStoreCoordinator.dryRunMigration(ofStoreAt: url, to: v2).isMigrationNeeded == false)
    }

    @Test("two coordinators adding the same old store at once: one migrates, the other finds it migrated; both open it")
    func concurrentOpen() throws {
        let (bundle, _, url) = try shop()
        let outcomes = StrataLock<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let opened =
                (try? MigrationHarness.with(try ManagedObjectModel(contentsOf: bundle), at: url, options: MigrationHarness.automatic) { context in
                    try MigrationHarness.objects("Item", in: context).count == 3
                }) ?? false
            outcomes.withLock { $0.append(opened) }
        }
        #expect(outcomes.withLock { $0 } == [true, true])
    }
}
