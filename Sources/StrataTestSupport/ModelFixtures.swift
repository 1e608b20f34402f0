import Foundation
import Strata

/// A value stored through a Codable transformer in fixtures.
public struct Color: Codable, Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

extension Color: AttributeValueConvertible {
    public static var absentAttributeValue: Color { Color(red: 0, green: 0, blue: 0) }
}

/// An object of the fixture entity "Sample", with one attribute of every type.
public final class Sample: ManagedObject {
    @Attribute("name") public var name: String
    @Attribute("int16") public var int16: Int16
    @Attribute("int32") public var int32: Int32
    @Attribute("int64") public var int64: Int64
    @Attribute("decimal") public var decimal: Decimal?
    @Attribute("double") public var double: Double
    @Attribute("float") public var float: Float
    @Attribute("string") public var string: String?
    @Attribute("flag") public var flag: Bool
    @Attribute("date") public var date: Date?
    @Attribute("data") public var data: Data?
    @Attribute("uuid") public var uuid: UUID?
    @Attribute("url") public var url: URL?
    @Attribute("color") public var color: Color?
    @Attribute("scratch") public var scratch: String?
}

/// Models used across the tests.
public enum ModelFixtures {
    /// The transformer name fixtures use for `Color`. Not "ColorTransformer": the transformer
    /// registry is process-wide and the model-file corpus tests register a property-list
    /// transformer under that name (a real model names it), which, with tests in parallel,
    /// replaced this one in the middle of a round-trip test.
    public static let colorTransformer = "StrataTestColorTransformer"

    /// A model with one entity, "Sample", holding every attribute type (plus a transient one).
    public static func allTypes() -> ManagedObjectModel {
        AttributeValueTransformers.register(CodableValueTransformer<Color>(), forName: colorTransformer)
        let sample = EntityDescription(name: "Sample", managedObjectClass: Sample.self)
        let color = AttributeDescription(name: "color", type: .transformable)
        color.valueTransformerName = colorTransformer
        let scratch = AttributeDescription(name: "scratch", type: .string)
        scratch.isTransient = true
        sample.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "int16", type: .integer16, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "int32", type: .integer32, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "int64", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "decimal", type: .decimal),
            AttributeDescription(name: "double", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "float", type: .float, isOptional: false, defaultValue: Float(0)),
            AttributeDescription(name: "string", type: .string),
            AttributeDescription(name: "flag", type: .boolean, isOptional: false, defaultValue: false),
            AttributeDescription(name: "date", type: .date),
            AttributeDescription(name: "data", type: .binaryData),
            AttributeDescription(name: "uuid", type: .uuid),
            AttributeDescription(name: "url", type: .uri),
            color,
            scratch,
        ]
        return ManagedObjectModel(entities: [sample])
    }

    /// A small "Person(name, age, score)" model, the shape of the examples in `README.md`.
    public static func people() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "score", type: .double),
        ]
        return ManagedObjectModel(entities: [person])
    }

    /// `count` new `Person` objects of a fresh ``people()`` model, inserted into no context: what
    /// tests of the structures that hold objects (the unit of work's sets, the identity map) put
    /// in them. Call on the thread that then uses them.
    public static func detachedPeople(_ count: Int) -> [ManagedObject] {
        guard let entity = people().entitiesByName["Person"] else { return [] }
        return (0..<count).map { _ in ManagedObject(entity: entity, insertInto: nil) }
    }
}
