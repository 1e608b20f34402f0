import Foundation
import Strata
import StrataCodeGeneration
import StrataTestSupport
import Testing

/// What the generator writes for the mogenerator test model of the shared corpus (inheritance,
/// entities without a class of their own, every attribute type, ordered and unordered
/// to-manys, a transformable) and for the corpus as a whole.
@Suite("Model code generator")
struct ModelCodeGeneratorTests {
    static let mogenerator = ModelFileCorpus.url("mogenerator/test.xcdatamodel")

    static func files(_ url: URL = mogenerator, access: ModelCodeGenerator.AccessLevel = .public) throws -> [String: String] {
        let model = try ManagedObjectModel(contentsOf: url)
        let files = ModelCodeGenerator(accessLevel: access).files(for: model, modelName: url.lastPathComponent)
        return Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.contents) })
    }

    // Xcode generates `<Class>+CoreDataClass.swift` and `<Class>+CoreDataProperties.swift` for each
    // entity whose class is not NSManagedObject, named after the class, not the entity.
    @Test("two files per entity with a class of its own, named after the class")
    func fileNames() throws {
        let names = try Self.files().keys.sorted()
        let classes = ["ChildMO", "ConcreteEntityWithCustomClass1", "ConcreteEntityWithCustomClass2", "HumanMO", "MyBaseClass", "ParentMO", "UncleMO"]
        #expect(names == classes.flatMap { ["\($0)+Class.swift", "\($0)+Properties.swift"] })
    }

    // Core Data: a subentity's class inherits from its parent entity's class; properties are
    // optional in Swift exactly when the model says so (scalars with usesScalarValueType aside,
    // which Strata does not need).
    @Test("base classes follow the entity hierarchy; optionality follows the model")
    func hierarchyAndOptionality() throws {
        let files = try Self.files()
        let human = try #require(files["HumanMO+Properties.swift"])
        #expect(human.contains("public class _HumanMO: ManagedObject, InheritableKeyPathKeyed {"))
        #expect(human.contains("@Attribute(\"age\") public var age: Int16\n"))
        #expect(human.contains("@Attribute(\"humanName\") public var humanName: String?\n"))
        // The destination has no class: the relationship holds plain managed objects.
        #expect(human.contains("@Relationship(\"meaninglessRelationship\") public var meaninglessRelationship: ManagedObject?\n"))
        #expect(human.contains("public class func fetchRequest() -> FetchRequest<HumanMO> {\n        FetchRequest<HumanMO>(entityName: \"Human\")"))
        // HumanMO has generated subclasses, so its class is not final: its table is
        // InheritableKeyPathKeyed's (a class var its subclasses may override), not KeyPathKeyed's.
        #expect(files["HumanMO+Class.swift"]?.contains("public class HumanMO: _HumanMO {}") == true)
        #expect(human.contains("    public class var inheritableKeyPathKeys: [AnyKeyPath: String] {\n        [\n            \\HumanMO.age: \"age\","))
        #expect(!human.contains("extension HumanMO: KeyPathKeyed"))

        let parent = try #require(files["ParentMO+Properties.swift"])
        #expect(parent.contains("public class _ParentMO: HumanMO {"))
        #expect(files["ParentMO+Class.swift"]?.contains("public final class ParentMO: _ParentMO {}") == true)
        for (key, type) in [
            ("myBinaryData", "Data?"), ("myBoolean", "Bool?"), ("myDate", "Date?"), ("myDecimal", "Decimal?"), ("myDouble", "Double?"),
            ("myFloat", "Float?"), ("myInt16", "Int16?"), ("myInt16Transient", "Int16?"), ("myInt32", "Int32?"), ("myInt64", "Int64?"),
            ("myString", "String?"), ("children", "Set<ChildMO>"), ("orderedChildren", "[ChildMO]"),
        ] {
            let wrapper = type.hasPrefix("Set") || type.hasPrefix("[") ? "Relationship" : "Attribute"
            #expect(parent.contains("@\(wrapper)(\"\(key)\") public var \(key): \(type)\n"), "\(key)")
        }
        // A transformable has no Swift type: named, not declared.
        #expect(parent.contains("// `myTransformableSansClassName`: no typed property (Transformable"))
        #expect(!parent.contains("var myTransformableSansClassName"))

        // A parent without a class of its own: its properties are declared by the child's base.
        let concrete = try #require(files["ConcreteEntityWithCustomClass1+Properties.swift"])
        #expect(concrete.contains("public class _ConcreteEntityWithCustomClass1: ManagedObject {"))
        #expect(concrete.contains("public var dummy1: Int16?"))
        #expect(concrete.contains("public var dummy2: Int16?"))
    }

    // Core Data generates `addToX(_:)`, `removeFromX(_:)` (object and set forms) for each to-many,
    // and for ordered ones `insertIntoX(_:at:)`, `removeFromX(at:)` and the index-set forms.
    @Test("typed to-many accessors, with positions for ordered relationships")
    func accessors() throws {
        let parent = try #require(try Self.files()["ParentMO+Properties.swift"])
        for signature in [
            "func addToChildren(_ value: ChildMO) { $children.add(value) }",
            "func removeFromChildren(_ value: ChildMO) { $children.remove(value) }",
            "func addToChildren(_ values: Set<ChildMO>) { $children.addObjects(from: values) }",
            "func removeFromChildren(_ values: Set<ChildMO>) { $children.removeObjects(in: values) }",
            "func addToOrderedChildren(_ value: ChildMO) { $orderedChildren.add(value) }",
            "func addToOrderedChildren(_ values: [ChildMO]) { $orderedChildren.addObjects(from: values) }",
            "func insertIntoOrderedChildren(_ value: ChildMO, at index: Int) { $orderedChildren.insert(value, at: index) }",
            "func insertIntoOrderedChildren(_ values: [ChildMO], at indexes: IndexSet) { $orderedChildren.insert(values, at: indexes) }",
            "func removeFromOrderedChildren(at index: Int) { $orderedChildren.removeObject(at: index) }",
            "func removeFromOrderedChildren(at indexes: IndexSet) { $orderedChildren.removeObjects(at: indexes) }",
        ] {
            #expect(parent.contains("public " + signature), "\(signature)")
        }
        #expect(!parent.contains("insertIntoChildren"))
    }

    // The key-path table lists each typed key path with its key, and through a to-one the
    // destination's attributes (a sort descriptor's `\Child.parent?.parentName`).
    @Test("a final class gets its key-path table, inherited properties included")
    func keyPathTable() throws {
        let child = try #require(try Self.files()["ChildMO+Properties.swift"])
        #expect(child.contains("extension ChildMO: KeyPathKeyed {"))
        for entry in [
            "\\ChildMO.childName: \"childName\"", "\\ChildMO.humanName: \"humanName\"", "\\ChildMO.parent: \"parent\"",
            "\\ChildMO.parent?.parentName: \"parent.parentName\"", "\\ChildMO.parent?.age: \"parent.age\"",
        ] {
            #expect(child.contains(entry), "\(entry)")
        }
    }

    // Generated files say that they are generated, and by what; the same model gives the same text.
    @Test("headers name the generator; output is deterministic; internal access on request")
    func headersAndDeterminism() throws {
        let first = try Self.files()
        #expect(try Self.files() == first)
        let properties = try #require(first["ChildMO+Properties.swift"])
        #expect(properties.hasPrefix("// ChildMO+Properties.swift: entity 'Child' of test.xcdatamodel.\n// Generated by `strata generate`"))
        #expect(first["ChildMO+Class.swift"]?.contains("this file is yours and is never overwritten") == true)
        let internalText = try #require(try Self.files(access: .internal)["ChildMO+Properties.swift"])
        #expect(internalText.contains("class _ChildMO: HumanMO {") && !internalText.contains("public"))
    }

    // The plugin's form: one file per model; classes the target declares itself are left out.
    @Test("the combined file holds every entity except the target's own classes")
    func combinedFile() throws {
        let model = try ManagedObjectModel(contentsOf: Self.mogenerator)
        let file = ModelCodeGenerator().combinedFile(for: model, modelName: "test.xcdatamodel", userClasses: ["UncleMO"])
        #expect(file.name == "test+Entities.swift")
        #expect(file.contents.contains("public final class ChildMO: _ChildMO {}"))
        #expect(!file.contents.contains("class UncleMO: _UncleMO"))
        #expect(file.contents.contains("public class _UncleMO: HumanMO {"))
        #expect(ModelCodeGenerator.combinedFileName(forModelNamed: "Classic.ColorsDemo.xcdatamodeld") == "Classic.ColorsDemo+Entities.swift")
    }

    // Every model of the corpus generates without trouble, one class per entity with a class.
    @Test("every corpus model generates")
    func wholeCorpus() throws {
        ModelFileCorpus.registerTransformers()
        for url in ModelFileCorpus.allModels() {
            let model = try ManagedObjectModel(contentsOf: url)
            let files = ModelCodeGenerator().files(for: model, modelName: url.lastPathComponent)
            #expect(files.count % 2 == 0, "\(url.lastPathComponent)")
            for file in files where file.kind == .properties {
                #expect(file.contents.contains("fetchRequest()"), "\(file.name)")
            }
        }
    }
}
