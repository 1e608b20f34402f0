import Foundation
import Strata
import StrataTestSupport
import Testing

/// Small model files of our own, written to a temporary `.xcdatamodel/contents`, covering every
/// feature the reader maps. The XML follows what Xcode writes (see the corpus in
/// `../shared/testdata/xcdatamodels` for real examples of each element).
@Suite("Model files: features")
struct ModelFileFeatureTests {
    static let everything = ModelFileScratch.model(
        """
            <entity name="Item" representedClassName="MyApp.Item" isAbstract="YES" versionHashModifier="v2" elementID="OldItem" syncable="YES">
                <attribute name="i16" attributeType="Integer 16" minValueString="-5" maxValueString="500" defaultValueString="7"/>
                <attribute name="i32" optional="YES" attributeType="Integer 32" defaultValueString="0.0"/>
                <attribute name="i64" optional="YES" attributeType="Integer 64" indexed="YES"/>
                <attribute name="dec" optional="YES" attributeType="Decimal" defaultValueString="1.25"/>
                <attribute name="dbl" optional="YES" attributeType="Double" defaultValueString="2.5"/>
                <attribute name="flt" optional="YES" attributeType="Float" defaultValueString="0.5"/>
                <attribute name="str" optional="YES" attributeType="String" minValueString="1" maxValueString="9" regularExpressionString="[a-z]+" defaultValueString="abc"/>
                <attribute name="flag" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
                <attribute name="when" optional="YES" attributeType="Date" defaultDateTimeInterval="60" minDateTimeInterval="0"/>
                <attribute name="blob" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                <attribute name="uid" optional="YES" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F"/>
                <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com"/>
                <attribute name="thing" optional="YES" attributeType="Transformable" valueTransformerName="FeatureTestTransformer"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                <attribute name="tagCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="tags.@count"/>
                <attribute name="kept" optional="YES" attributeType="String" preserveAfterDeletion="YES" elementID="oldKept" versionHashModifier="m1">
                    <userInfo>
                        <entry key="note" value="attribute level"/>
                    </userInfo>
                </attribute>
                <relationship name="tags" optional="YES" toMany="YES" minCount="1" maxCount="5" deletionRule="Cascade" ordered="YES" destinationEntity="Tag" inverseName="item" inverseEntity="Tag" elementID="labels">
                    <userInfo>
                        <entry key="note" value="relationship level"/>
                    </userInfo>
                </relationship>
                <fetchedProperty name="sameName" optional="YES">
                    <fetchRequest name="fetchedPropertyFetchRequest" entity="Tag" predicateString="name == $FETCH_SOURCE.str"/>
                </fetchedProperty>
                <userInfo>
                    <entry key="note" value="entity level"/>
                </userInfo>
                <uniquenessConstraints>
                    <uniquenessConstraint>
                        <constraint value="i64"/>
                        <constraint value="str"/>
                    </uniquenessConstraint>
                </uniquenessConstraints>
                <fetchIndex name="byStrAndWhen">
                    <fetchIndexElement property="str" type="Binary" order="ascending"/>
                    <fetchIndexElement property="when" type="Binary" order="descending"/>
                </fetchIndex>
            </entity>
            <entity name="Book" representedClassName=".Book" parentEntity="Item">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Tag" representedClassName="Tag">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
                <relationship name="loose" optional="YES" maxCount="1" deletionRule="No Action" destinationEntity="Tag"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="name"/>
                        <index value="item"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            <fetchRequest name="tagsNamed" entity="Tag" predicateString="name == $NAME AND item != nil" fetchLimit="3"/>
            <configuration name="Tags">
                <memberEntity name="Tag"/>
            </configuration>
            <userInfo>
                <entry key="note" value="model level"/>
            </userInfo>
            <elements>
                <element name="Item" positionX="0" positionY="0" width="128" height="60"/>
            </elements>
            <somethingNew flavour="ignored"/>
        """, attributes: "userDefinedModelVersionIdentifier=\"7.1\" unknownAttribute=\"ignored\"")

    init() {
        AttributeValueTransformers.register(PropertyListValueTransformer(), forName: "FeatureTestTransformer")
    }

    func load() throws -> (ManagedObjectModel, ModelFileScratch) {
        let scratch = ModelFileScratch()
        let url = try scratch.writeVersion(Self.everything)
        return (try ManagedObjectModel(contentsOf: url), scratch)
    }

    // Core Data's entity traits: name, class name, abstract, parent, version hash modifier,
    // renaming identifier, userInfo (NSEntityDescription).
    @Test("entities: class name, abstract, parent, modifier, renaming identifier, userInfo")
    func entities() throws {
        let (model, _) = try load()
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.representedClassName == "MyApp.Item")
        #expect(item.isAbstract && item.versionHashModifier == "v2" && item.renamingIdentifier == "OldItem")
        #expect(item.userInfo["note"] as? String == "entity level")
        #expect(item.subentities.map(\.name) == ["Book"])
        #expect(model.entitiesByName["Book"]?.superentity === item)
        #expect(model.entitiesByName["Book"]?.attributesByName["i16"] != nil)
        #expect(model.versionIdentifiers == ["7.1"])
        #expect(model.userInfo["note"] as? String == "model level")
    }

    // Every attributeType Xcode writes, with its default, bounds, pattern and flags
    // (NSAttributeDescription; string bounds are lengths, date defaults are seconds since 2001).
    @Test("attributes: every type, defaults, bounds, pattern, transformer, external storage, derived")
    func attributes() throws {
        let (model, _) = try load()
        let a = try #require(model.entitiesByName["Item"]?.attributesByName)
        #expect(a["i16"]?.type == .integer16 && a["i16"]?.isOptional == false)
        #expect(a["i16"]?.defaultValue as? Int16 == 7 && a["i16"]?.minValue as? Int16 == -5 && a["i16"]?.maxValue as? Int16 == 500)
        #expect(a["i32"]?.defaultValue as? Int32 == 0)
        #expect(a["i64"]?.type == .integer64 && a["i64"]?.isIndexed == true)
        #expect(a["dec"]?.defaultValue as? Decimal == Decimal(string: "1.25"))
        #expect(a["dbl"]?.defaultValue as? Double == 2.5 && a["flt"]?.defaultValue as? Float == 0.5)
        #expect(a["str"]?.minLength == 1 && a["str"]?.maxLength == 9 && a["str"]?.regularExpression == "[a-z]+")
        #expect(a["str"]?.defaultValue as? String == "abc")
        #expect(a["flag"]?.type == .boolean && a["flag"]?.defaultValue as? Bool == true)
        #expect(a["when"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(a["when"]?.minValue as? Date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(a["blob"]?.type == .binaryData && a["blob"]?.allowsExternalBinaryDataStorage == true)
        #expect(a["uid"]?.defaultValue as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(a["link"]?.defaultValue as? URL == URL(string: "https://example.com"))
        #expect(a["thing"]?.type == .transformable && a["thing"]?.valueTransformerName == "FeatureTestTransformer")
        #expect(a["scratch"]?.type == .undefined && a["scratch"]?.isTransient == true)
        #expect(a["tagCount"]?.isDerived == true && a["tagCount"]?.derivationExpression == "tags.@count")
        #expect(a["kept"]?.preservesValueInHistoryOnDeletion == true && a["kept"]?.renamingIdentifier == "oldKept")
        #expect(a["kept"]?.versionHashModifier == "m1" && a["kept"]?.userInfo["note"] as? String == "attribute level")
    }

    // NSRelationshipDescription: to-many, ordered, delete rule, counts, inverse; to-one.
    @Test("relationships: to-many, ordered, delete rules, counts, inverse, userInfo")
    func relationships() throws {
        let (model, _) = try load()
        let tags = try #require(model.entitiesByName["Item"]?.relationshipsByName["tags"])
        #expect(tags.isToMany && tags.isOrdered && tags.deleteRule == .cascade && tags.minCount == 1 && tags.maxCount == 5)
        #expect(tags.destinationEntity?.name == "Tag" && tags.inverseRelationship?.name == "item")
        #expect(tags.renamingIdentifier == "labels" && tags.userInfo["note"] as? String == "relationship level")
        let item = try #require(model.entitiesByName["Tag"]?.relationshipsByName["item"])
        #expect(!item.isToMany && item.deleteRule == .deny && item.isOptional)
        #expect(model.entitiesByName["Tag"]?.relationshipsByName["loose"]?.deleteRule == .noAction)
    }

    // Fetched properties (NSFetchedPropertyDescription) and fetch request templates with
    // substitution variables (NSManagedObjectModel.fetchRequestFromTemplate(withName:substitutionVariables:)).
    @Test("fetched properties and templates with $variables")
    func fetchRequests() throws {
        let (model, _) = try load()
        let fetched = try #require(model.entitiesByName["Item"]?.propertiesByName["sameName"] as? FetchedPropertyDescription)
        #expect(fetched.fetchRequest?.entityName == "Tag")
        #expect(fetched.fetchRequest?.predicate != nil)
        #expect(model.fetchRequestTemplateNames == ["tagsNamed"])
        let request = try model.fetchRequestFromTemplate(withName: "tagsNamed", substitutionVariables: ["NAME": "red"])
        #expect(request.predicate == ObjectPredicate(format: "name == %@ AND item != nil", "red"))
        #expect(request.fetchLimit == 3)
        #expect(throws: StrataError.self) { try model.fetchRequestFromTemplate(withName: "tagsNamed", substitutionVariables: [:]) }
    }

    // Uniqueness constraints, fetch indexes (and the older compound indexes), configurations.
    @Test("uniqueness constraints, fetch indexes, configurations")
    func constraintsIndexesConfigurations() throws {
        let (model, _) = try load()
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.uniquenessConstraints == [["i64", "str"]])
        #expect(
            item.indexes == [
                FetchIndexDescription(
                    name: "byStrAndWhen", elements: [.init(propertyName: "str"), .init(propertyName: "when", isAscending: false)])
            ])
        #expect(model.entitiesByName["Tag"]?.indexes.first?.elements.map(\.propertyName) == ["name", "item"])
        #expect(model.configurations == ["Tags"])
        #expect(model.entities(forConfigurationName: "Tags").map(\.name) == ["Tag"])
    }

    @Test("the model backs in-memory and SQLite stores", arguments: TestStack.Kind.allCases)
    func backsStores(_ kind: TestStack.Kind) throws {
        let (model, _) = try load()
        let stack = try TestStack(model: model, kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let book = try EntityDescription.insertNewObject(forEntityName: "Book", into: context)
            let tag = try EntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("abc", forKey: "name")
            book.mutableOrderedSetValue(forKey: "tags").add(tag)
            #expect(book.value(forKey: "i16") as? Int16 == 7)
            try context.save()
            let found = try context.fetch(model.fetchRequestFromTemplate(withName: "tagsNamed", substitutionVariables: ["NAME": "abc"]))
            #expect(found.count == 1)
            #expect((book.value(forKey: "sameName") as? [ManagedObject])?.count == 1)
        }
    }

    // Bundle resolution: .xccurrentversion names the current version; without it, the only
    // version is current.
    @Test("bundles: current version from .xccurrentversion, or the only version")
    func bundles() throws {
        let scratch = ModelFileScratch()
        try scratch.writeVersion(ModelFileScratch.model(#"<entity name="A"/>"#), name: "V1", bundle: "M")
        let bundle = scratch.directory.url.appendingPathComponent("M.xcdatamodeld")
        #expect(try ManagedObjectModel(contentsOf: bundle).entitiesByName.keys.sorted() == ["A"])
        try scratch.writeVersion(ModelFileScratch.model(#"<entity name="B"/>"#), name: "V2", bundle: "M")
        _ = try scratch.writeCurrentVersion("V2.xcdatamodel", bundle: "M")
        #expect(try ManagedObjectModel(contentsOf: bundle).entitiesByName.keys.sorted() == ["B"])
        _ = try scratch.writeCurrentVersion("V1.xcdatamodel", bundle: "M")
        #expect(try ManagedObjectModel(contentsOf: bundle).entitiesByName.keys.sorted() == ["A"])
        // The contents file itself reads too.
        let contents = bundle.appendingPathComponent("V2.xcdatamodel/contents")
        #expect(try ManagedObjectModel(contentsOf: contents).entitiesByName.keys.sorted() == ["B"])
    }
}
