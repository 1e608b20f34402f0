import Foundation
import StrataLocks

/// Turns the values of a `transformable` attribute into bytes for the store and back.
///
/// `ValueTransformer` does not exist in Foundation on Linux (and the bare name belongs to
/// Foundation on Apple systems), so Strata uses this protocol with a registry of named
/// transformers. Register transformers before loading a model that names them; the model check
/// reports unknown names. Transformers are called on the queue of the context that saves or
/// reads the value, so they must be `Sendable` and thread-safe.
public protocol AttributeValueTransformer: Sendable {
    /// Encodes a value for storage. Throw to reject a value of the wrong kind.
    func transformedValue(_ value: Any) throws -> Data
    /// Decodes stored bytes back into a value.
    func reverseTransformedValue(_ data: Data) throws -> Any
}

/// A transformer for any `Codable` type, encoding it as JSON.
///
/// ```swift
/// struct Color: Codable, Sendable { var r, g, b: Double }
/// AttributeValueTransformers.register(CodableValueTransformer<Color>(), forName: "ColorTransformer")
/// ```
public struct CodableValueTransformer<Value: Codable & Sendable>: AttributeValueTransformer {
    /// Creates the transformer.
    public init() {}

    public func transformedValue(_ value: Any) throws -> Data {
        guard let typed = value as? Value else {
            throw StrataError(
                code: StrataError.Code.managedObjectValidation,
                message: "The transformer for \(Value.self) cannot encode a value of type \(type(of: value))",
                valueDescription: String(describing: value))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(typed)
    }

    public func reverseTransformedValue(_ data: Data) throws -> Any {
        try JSONDecoder().decode(Value.self, from: data)
    }
}

/// The default transformer: property-list values (strings, numbers, booleans, dates, data, and
/// arrays and dictionaries of them), stored as a binary property list. Reading gives Swift
/// values (`Int`, `Double`, `Bool`, `[Any]`, `[String: Any]`…) and refuses damaged data, and lists
/// nested deeper than 256 levels, with an error.
///
/// `Sendable` and stateless: it transforms values on whatever queue the reading or saving context
/// runs.
public struct PropertyListValueTransformer: AttributeValueTransformer {
    /// Creates the transformer.
    public init() {}

    public func transformedValue(_ value: Any) throws -> Data {
        guard PropertyListSerialization.propertyList(value, isValidFor: .binary) else {
            throw StrataError(
                code: StrataError.Code.managedObjectValidation,
                message: "A value of type \(type(of: value)) is not a property list; register a transformer for it and name it in the attribute's valueTransformerName",
                valueDescription: String(describing: value))
        }
        return try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
    }

    public func reverseTransformedValue(_ data: Data) throws -> Any {
        try PropertyListReader.value(from: data)
    }
}

/// The registry of named ``AttributeValueTransformer``s. Safe to use from any thread.
public enum AttributeValueTransformers {
    /// The name of the default, property-list transformer (used when an attribute names none).
    public static let propertyListTransformerName = "PropertyListValueTransformer"

    private static let registry = StrataLock<[String: any AttributeValueTransformer]>([
        propertyListTransformerName: PropertyListValueTransformer()
    ])

    /// Registers `transformer` under `name`, replacing any earlier one; `nil` removes it.
    public static func register(_ transformer: (any AttributeValueTransformer)?, forName name: String) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`, if any.
    public static func transformer(forName name: String) -> (any AttributeValueTransformer)? {
        registry.withLock { $0[name] }
    }

    /// The names of all registered transformers.
    public static var names: [String] { registry.withLock { $0.keys.sorted() } }
}
