import Foundation
import Strata
import StrataTestSupport
import Testing

/// Version hashes of models read from files. Core Data's documentation of `versionHash`
/// (NSEntityDescription, NSPropertyDescription, NSAttributeDescription,
/// NSRelationshipDescription): an entity's hash covers its name, its superentity's hash, whether
/// it is abstract, its versionHashModifier and its properties' hashes; a property's covers its
/// name, optional, transient and versionHashModifier; an attribute's adds its type; a
/// relationship's adds its destination, inverse and min/max counts. User info, validation,
/// defaults and renaming identifiers are not inputs. Strata's hashes are not byte-equal to Core
/// Data's SHA-256 ones.
@Suite("Model files: versions and hashes")
struct ModelFileVersionHashTests {
    static func xml(
        itemAttributes: String = "", attributeType: String = "String", attributeExtras: String = "", tagMax: String = "",
        entityExtras: String = ""
    ) -> String {
        ModelFileScratch.model(
            """
            <entity name="Item" \(entityExtras)>
                <attribute name="title" optional="YES" attributeType="\(attributeType)" \(attributeExtras)/>
                <attribute name="count" attributeType="Integer 32" defaultValueString="0"/>
                <relationship name="tags" optional="YES" toMany="YES" \(tagMax) deletionRule="Nullify" destinationEntity="Tag" inverseName="item" inverseEntity="Tag"/>
                \(itemAttributes)
            </entity>
            <entity name="Special" parentEntity="Item"/>
            <entity name="Tag">
                <relationship name="item" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
            </entity>
            """, attributes: "userDefinedModelVersionIdentifier=\"1\"")
    }

    func model(_ xml: String) throws -> ManagedObjectModel {
        let scratch = ModelFileScratch()
        return try ManagedObjectModel(contentsOf: scratch.writeVersion(xml))
    }

    @Test("the same file read twice has the same hashes and checksum")
    func stable() throws {
        let a = try model(Self.xml())
        let b = try model(Self.xml())
        #expect(a.entityVersionHashesByName == b.entityVersionHashesByName)
        #expect(a.versionHash == b.versionHash && a.versionChecksum == b.versionChecksum)
        #expect(Data(base64Encoded: a.versionChecksum) == a.versionHash)
        let moody = ModelFileCorpus.url("core-data/Moody.xcdatamodeld")
        #expect(try ManagedObjectModel(contentsOf: moody).versionChecksum == ManagedObjectModel(contentsOf: moody).versionChecksum)
    }

    @Test("user info, renaming identifiers, defaults, validation, indexes and version identifiers do not change them")
    func notInputs() throws {
        let base = try model(Self.xml())
        let variants = [
            Self.xml(attributeExtras: #"elementID="oldTitle""#),
            Self.xml(entityExtras: #"elementID="OldItem""#),
            Self.xml(attributeExtras: #"defaultValueString="x" regularExpressionString="[a-z]*" minValueString="1" maxValueString="20""#),
            Self.xml(attributeExtras: #"indexed="YES""#),
            Self.xml(entityExtras: #"representedClassName="Item""#),
            Self.xml(itemAttributes: #"<userInfo><entry key="k" value="v"/></userInfo>"#),
            Self.xml().replacingOccurrences(of: #"userDefinedModelVersionIdentifier="1""#, with: #"userDefinedModelVersionIdentifier="2""#),
        ]
        for xml in variants {
            let changed = try model(xml)
            #expect(changed.entityVersionHashesByName == base.entityVersionHashesByName, "\(xml)")
            #expect(changed.versionChecksum == base.versionChecksum)
        }
    }

    @Test("type, optionality, modifiers, counts and the parent change them")
    func inputs() throws {
        let base = try model(Self.xml())
        func changedEntities(_ xml: String) throws -> Set<String> {
            let other = try model(xml)
            return Set(base.entityVersionHashesByName.keys.filter { base.entityVersionHashesByName[$0] != other.entityVersionHashesByName[$0] })
        }
        // An attribute type change changes Item and, through the superentity hash, Special.
        #expect(try changedEntities(Self.xml(attributeType: "Date")) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml(attributeExtras: #"versionHashModifier="v2""#)) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml(entityExtras: #"versionHashModifier="v2""#)) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml(entityExtras: #"isAbstract="YES""#)) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml(tagMax: #"maxCount="3""#)) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml(itemAttributes: #"<attribute name="extra" optional="YES" attributeType="String"/>"#)) == ["Item", "Special"])
        #expect(try changedEntities(Self.xml().replacingOccurrences(of: #"name="title" optional="YES""#, with: #"name="title""#)) == ["Item", "Special"])
        #expect(try model(Self.xml(attributeType: "Date")).versionChecksum != base.versionChecksum)
        // ReadingList's books_18 differs from books_17 only by Book's versionHashModifier
        // ("authorTransformer"), set to force a migration of the transformed data.
        let v17 = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("ReadingList/books.xcdatamodeld/books_17.xcdatamodel"))
        let v18 = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("ReadingList/books.xcdatamodeld/books_18.xcdatamodel"))
        #expect(v17.entityVersionHashesByName["Book"] != v18.entityVersionHashesByName["Book"])
    }

    // NSManagedObjectModel.isConfiguration(withName:compatibleWithStoreMetadata:) and
    // NSPersistentStoreCoordinator.metadataForPersistentStore(ofType:at:).
    @Test("a store's metadata is compatible with its model version, not with another")
    func compatibility() throws {
        ModelFileCorpus.registerTransformers()
        let bundle = ModelFileCorpus.url("core-data/Moody.xcdatamodeld")
        let current = try ManagedObjectModel(contentsOf: bundle)
        let stack = try TestStack(model: current, kind: .sqlite)
        _ = try ModelFiller.insertOneOfEach(into: stack)
        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }

        let before = try Data(contentsOf: stack.storeURL)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.storeURL)
        #expect(try Data(contentsOf: stack.storeURL) == before)
        #expect(metadata[StoreMetadataKey.storeType] as? String == StoreType.sqlite.rawValue)

        let again = try ManagedObjectModel(contentsOf: bundle)
        #expect(again.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        for version in ["Moody.xcdatamodel", "Moody 3.xcdatamodel", "Moody 5.xcdatamodel"] {
            let older = try ManagedObjectModel(contentsOf: bundle.appendingPathComponent(version))
            #expect(!older.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(version)")
        }
        // The metadata read while the store is open for writing elsewhere.
        let open = try TestStack(model: try ManagedObjectModel(contentsOf: bundle), kind: .sqlite)
        let live = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: open.storeURL)
        #expect(open.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: live))
    }

    // The store records the hashes of every entity of the model (as Core Data's metadata does),
    // so each configuration is checked against its own entities only.
    @Test("a configuration is compatible with a store added for it")
    func configurationCompatibility() throws {
        let url = ModelFileCorpus.url("CoreStore/Model.xcdatamodeld")
        let model = try ManagedObjectModel(contentsOf: url)
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let storeURL = directory.file("Config1.sqlite")
        let store = try coordinator.addPersistentStore(type: .sqlite, configuration: "Config1", at: storeURL)
        try coordinator.remove(store)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: storeURL)
        let fresh = try ManagedObjectModel(contentsOf: url)
        #expect(fresh.isConfiguration(withName: "Config1", compatibleWithStoreMetadata: metadata))
        #expect(fresh.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        let other = try ManagedObjectModel(contentsOf: ModelFileCorpus.url("CoreStore/Classic.ColorsDemo.xcdatamodeld"))
        #expect(!other.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    }

    @Test("a missing store's metadata is an error naming the file")
    func missingStore() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("None.sqlite")
        let error = try #require(throws: StrataError.self) { try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url) }
        #expect(error.url == url)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
