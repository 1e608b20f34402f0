import Foundation
import StrataTestSupport
import Testing

// The statement builder is internal to Strata: reached with @testable to check which tables a
// migration rebuilds.
@testable import Strata

/// Which tables an in-place migration rebuilds. SQLite's documented procedure for changing a
/// table (lang_altertable.html, "Making Other Kinds Of Table Schema Changes") rebuilds a table
/// whose definition changes; a table whose columns, entities and codes are unchanged is kept as
/// it is, with the indexes its model still has.
@Suite("Migration: the statements")
struct MigrationStatementsTests {
    static let before = """
        <entity name="Item">
            <attribute name="title" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Tag">
            <attribute name="name" attributeType="String" defaultValueString="x"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="name"/></uniquenessConstraint></uniquenessConstraints>
        </entity>
        """

    static let after = """
        <entity name="Item">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="size" optional="YES" attributeType="Integer 32"/>
        </entity>
        <entity name="Tag">
            <attribute name="name" attributeType="String" defaultValueString="x"/>
        </entity>
        """

    @Test("an unchanged table is kept (no rebuild), a changed one rebuilt; the kept table loses the uniqueness index its model dropped")
    func keptTables() throws {
        let scratch = ModelFileScratch()
        let source = try MigrationHarness.model(Self.before, scratch: scratch, name: "Before")
        let destination = try MigrationHarness.model(Self.after, scratch: scratch, name: "After")
        try source.freeze()
        try destination.freeze()
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let plan = try MigrationStatements(source: SQLiteSchema(model: source), destination: SQLiteSchema(model: destination), mapping: mapping)
        let keys = plan.keyPlan(ceilings: [:])
        #expect(plan.keptTables(keys: keys) == ["ZTAG"])
        let statements = plan.statements(keys: keys, hasHistory: false)
        #expect(statements.contains { $0.hasPrefix("CREATE TABLE \"Z_MIGRATING_ZITEM\"") })
        #expect(!statements.contains { $0.contains("Z_MIGRATING_ZTAG") || $0 == "DROP TABLE IF EXISTS \"ZTAG\"" })

        let url = scratch.directory.file("kept.sqlite")
        try MigrationHarness.with(source, at: url) { context in
            let tag = try EntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("red", forKey: "name")
            try context.save()
        }
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [source]]) { a, _ in a }
        try MigrationHarness.with(destination, at: url, options: options) { context in
            let again = try EntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            again.setValue("red", forKey: "name")
            try context.save()
            #expect(try MigrationHarness.objects("Tag", in: context).map { $0.value(forKey: "name") as? String } == ["red", "red"])
        }
    }

    @Test("the in-place seam runs a given mapping and reports it; a mapping it cannot run (custom) is refused with 134110 before anything is touched")
    func seam() throws {
        let scratch = ModelFileScratch()
        let source = try MigrationHarness.model(Self.before, scratch: scratch, name: "Before")
        let destination = try MigrationHarness.model(Self.after, scratch: scratch, name: "After")
        let url = scratch.directory.file("seam.sqlite")
        try MigrationHarness.with(source, at: url) { context in
            let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: context)
            item.setValue("kept", forKey: "title")
            try context.save()
        }
        let custom = MappingModel(entityMappings: [EntityMapping(name: "ItemToItem", mappingType: .custom, sourceEntityName: "Item", destinationEntityName: "Item")])
        let error = #expect(throws: StrataError.self) { try SQLiteStore.migrateInPlace(at: url, from: source, to: destination, mapping: custom) }
        #expect(error?.code == StrataError.Code.migration)
        #expect(error?.message.contains("ItemToItem is custom") == true)
        #expect(source.isConfiguration(withName: nil, compatibleWithStoreMetadata: try PersistentStoreCoordinator.metadataForPersistentStore(at: url)))
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
        let report = try SQLiteStore.migrateInPlace(at: url, from: source, to: destination, mapping: mapping)
        #expect(report.change(forDestinationEntity: "Item")?.propertyChanges == ["added size"])
        #expect(report.change(forDestinationEntity: "Item")?.rowCountAfter == 1)
        try MigrationHarness.with(destination, at: url) { context throws in
            #expect(try MigrationHarness.objects("Item", in: context).map { $0.value(forKey: "title") as? String } == ["kept"])
        }
    }
}
