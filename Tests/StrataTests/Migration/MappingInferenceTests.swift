import Foundation
import Strata
import StrataTestSupport
import Testing

/// `MappingModel.inferredMappingModel(forSourceModel:destinationModel:)`, rule by rule. Core
/// Data's "Lightweight Migration" guide (Core Data Model Versioning and Data Migration
/// Programming Guide) and `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`:
/// entities and properties are matched by name or renaming identifier; adding and removing
/// entities, attributes and relationships, making a property optional, making one required
/// with a default value, renaming, changing a relationship between to-one and to-many and
/// changing the entity hierarchy are inferred; other changes make inference fail with
/// `NSInferredMappingModelError` (134190).
@Suite("Migration: inferring a mapping model")
struct MappingInferenceTests {
    static let base = """
        <entity name="Item">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="count" attributeType="Integer 16" defaultValueString="0"/>
            <attribute name="ratio" optional="YES" attributeType="Float"/>
            <relationship name="tag" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tag" inverseEntity="Item"/>
        </entity>
        <entity name="Other">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """

    let scratch = ModelFileScratch()

    func infer(_ changed: String) throws -> MappingModel {
        let source = try MigrationHarness.model(Self.base, scratch: scratch, name: "Source")
        let destination = try MigrationHarness.model(changed, scratch: scratch, name: "Destination\(UUID().uuidString.prefix(6))")
        return try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination)
    }

    func refusal(_ changed: String) -> StrataError? {
        #expect(throws: StrataError.self) { try infer(changed) }
    }

    func item(_ mapping: MappingModel) throws -> EntityMapping {
        try #require(mapping.entityMappings.first { $0.destinationEntityName == "Item" })
    }

    @Test("the same model: every entity is copied, every property copies itself")
    func unchanged() throws {
        let mapping = try infer(Self.base)
        #expect(mapping.entityMappings.map(\.mappingType) == [.copy, .copy, .copy])
        #expect(mapping.entityMappingsByName["ItemToItem"]?.attributeMappings.map(\.sourcePropertyName) == ["count", "ratio", "title"])
        #expect(mapping.entityMappingsByName["ItemToItem"]?.relationshipMappings.map(\.sourcePropertyName) == ["tag"])
    }

    @Test("an added entity is add, a removed one remove, a renamed one (renaming identifier) transform from the old name")
    func entities() throws {
        let changed =
            Self.base.replacingOccurrences(of: #"<entity name="Other">"#, with: #"<entity name="Thing" elementID="Other">"#)
            + #"<entity name="New"><attribute name="x" attributeType="String"/></entity>"#
        let mapping = try infer(changed)
        #expect(mapping.entityMappingsByName["AddNew"]?.mappingType == .add)
        #expect(mapping.entityMappingsByName["OtherToThing"]?.mappingType == .transform)
        let removed = try infer(Self.base.replacingOccurrences(of: #"<entity name="Other">"#, with: #"<entity name="Another">"#))
        #expect(removed.entityMappingsByName["RemoveOther"]?.mappingType == .remove)
        #expect(removed.entityMappingsByName["AddAnother"]?.mappingType == .add)
    }

    @Test("attributes: added (optional, or required with a default) take the default; removed are not mapped; renamed copy the old one")
    func attributes() throws {
        let changed = Self.base
            .replacingOccurrences(
                of: #"<attribute name="title" optional="YES" attributeType="String"/>"#,
                with:
                    #"<attribute name="name" optional="YES" attributeType="String" elementID="title"/><attribute name="memo" optional="YES" attributeType="String"/><attribute name="rank" attributeType="Integer 32" defaultValueString="1"/>"#
            )
            .replacingOccurrences(of: #"<attribute name="ratio" optional="YES" attributeType="Float"/>"#, with: "")
        let mapping = try item(try infer(changed))
        #expect(mapping.mappingType == .transform)
        #expect(mapping.attributeMapping(named: "name")?.sourcePropertyName == "title")
        #expect(mapping.attributeMapping(named: "memo")?.valueExpression == nil)
        #expect(mapping.attributeMapping(named: "rank")?.valueExpression == nil)
        #expect(mapping.attributeMapping(named: "ratio") == nil)
        let error = refusal(Self.base.replacingOccurrences(of: #"<attribute name="count""#, with: #"<attribute name="size" attributeType="String"/><attribute name="count""#))
        #expect(error?.code == StrataError.Code.inferredMappingModel)
        #expect(error?.message.contains("Item.size") == true)
    }

    // Core Data's NSCustomMigrationStage documentation: "to support a migration that changes an
    // optional attribute to be nonoptional, you might assign a handler … that sets any nil
    // instances of that attribute" — the step itself is inferred; instances without a value
    // fail it (InPlaceMigrationTests checks the data side).
    @Test("optional → required is inferred with or without a default value; required → optional always")
    func optionality() throws {
        let withDefault = Self.base.replacingOccurrences(of: #"name="title" optional="YES" attributeType="String""#, with: #"name="title" attributeType="String" defaultValueString="?""#)
        #expect(try item(try infer(withDefault)).attributeMapping(named: "title")?.sourcePropertyName == "title")
        let withoutDefault = Self.base.replacingOccurrences(of: #"name="title" optional="YES" attributeType="String""#, with: #"name="title" attributeType="String""#)
        #expect(try item(try infer(withoutDefault)).attributeMapping(named: "title")?.sourcePropertyName == "title")
        let optional = Self.base.replacingOccurrences(of: #"name="count" attributeType="Integer 16""#, with: #"name="count" optional="YES" attributeType="Integer 16""#)
        #expect(try item(try infer(optional)).mappingType == .transform)
    }

    @Test(
        "type changes: widening is inferred (Integer 16 → 32 → 64, integer → Double or Decimal, Float → Double), anything else refused",
        arguments: [
            ("Integer 16", "Integer 32", true), ("Integer 16", "Integer 64", true), ("Integer 16", "Double", true), ("Integer 16", "Decimal", true),
            ("Integer 16", "String", false), ("Integer 16", "Boolean", false), ("Integer 16", "Float", false), ("Integer 16", "Date", false),
        ])
    func types(_ change: (String, String, Bool)) throws {
        let changed = Self.base.replacingOccurrences(of: #"name="count" attributeType="\#(change.0)""#, with: #"name="count" attributeType="\#(change.1)""#)
        if change.2 {
            #expect(try item(try infer(changed)).attributeMapping(named: "count")?.sourcePropertyName == "count")
        } else {
            let error = refusal(changed)
            #expect(error?.message.contains("Item.count changed type") == true)
        }
        let float = Self.base.replacingOccurrences(of: #"name="ratio" optional="YES" attributeType="Float""#, with: #"name="ratio" optional="YES" attributeType="Double""#)
        #expect(try item(try infer(float)).attributeMapping(named: "ratio")?.sourcePropertyName == "ratio")
        let narrowed = Self.base.replacingOccurrences(of: #"name="ratio" optional="YES" attributeType="Float""#, with: #"name="ratio" optional="YES" attributeType="Integer 64""#)
        #expect(refusal(narrowed)?.code == StrataError.Code.inferredMappingModel)
    }

    @Test("relationships: to-one ⇄ to-many and renames are inferred; a destination that now maps to an unrelated entity is refused")
    func relationships() throws {
        let toMany = Self.base
            .replacingOccurrences(of: #"<relationship name="tag" optional="YES" maxCount="1""#, with: #"<relationship name="tags" elementID="tag" optional="YES" toMany="YES""#)
            .replacingOccurrences(of: #"inverseName="tag""#, with: #"inverseName="tags""#)
        #expect(try item(try infer(toMany)).relationshipMapping(named: "tags")?.sourcePropertyName == "tag")
        let unrelated = Self.base
            .replacingOccurrences(of: #"destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>"#, with: #"destinationEntity="Other"/>"#)
            .replacingOccurrences(of: #"<relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tag" inverseEntity="Item"/>"#, with: "")
        let error = refusal(unrelated)
        #expect(error?.message.contains("Item.tag now leads to Other") == true)
    }

    @Test("inheritance: an entity moved under a new parent is a transform, its inherited attributes copied from its own")
    func inheritance() throws {
        let other = """
            <entity name="Other">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            """
        let moved = Self.base.replacingOccurrences(
            of: other,
            with: #"<entity name="Named"><attribute name="name" optional="YES" attributeType="String"/></entity><entity name="Other" parentEntity="Named"/>"#)
        #expect(moved != Self.base)
        let mapping = try infer(moved)
        #expect(mapping.entityMappingsByName["OtherToOther"]?.mappingType == .transform)
        #expect(mapping.entityMappingsByName["OtherToOther"]?.attributeMapping(named: "name")?.sourcePropertyName == "name")
        #expect(mapping.entityMappingsByName["AddNamed"]?.mappingType == .add)
    }
}
