import Foundation
import Strata

/// Encodes metadata values (property-list-like: `String`, integers, `Double`, `Float`, `Bool`,
/// `Data`, `Date`, `Decimal`, `UUID`, arrays and `[String: …]` dictionaries of them) as JSON
/// text that decodes to the same values and types: every value is a one-key object naming its
/// type (`{"s": "text"}`, `{"i": "42"}`, `{"d": "0.1"}`, …), numbers as exact text.
///
/// Stateless; usable from any thread.
enum PostgreSQLMetadataCoding {
    /// `value` as JSON text. Throws 134070 naming `key` and the type for a value that is not
    /// property-list-like.
    static func encode(_ value: Any, key: String) throws -> String {
        let tagged = try tag(value, key: key)
        let data = try JSONSerialization.data(withJSONObject: tagged, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// The value `text` (made by ``encode(_:key:)``) stands for; `nil` for text it did not make.
    static func decode(_ text: String) -> (any Sendable)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return nil }
        return untag(object)
    }

    private static func tag(_ value: Any, key: String) throws -> [String: Any] {
        switch value {
        case let bool as Bool: return ["b": bool]
        case let string as String: return ["s": string]
        case let int as Int: return ["i": String(int)]
        case let int as Int64: return ["i64": String(int)]
        case let int as Int32: return ["i32": String(int)]
        case let int as Int16: return ["i16": String(int)]
        case let int as UInt64: return ["u64": String(int)]
        case let double as Double: return ["d": String(double)]
        case let float as Float: return ["f": String(float)]
        case let decimal as Decimal: return ["dec": decimal.description]
        case let data as Data: return ["data": data.base64EncodedString()]
        case let date as Date: return ["date": String(date.timeIntervalSinceReferenceDate)]
        case let uuid as UUID: return ["uuid": uuid.uuidString]
        case let array as [Any]: return ["a": try array.map { try tag($0, key: key) }]
        case let dictionary as [String: Any]: return ["m": try dictionary.mapValues { try tag($0, key: key) }]
        default:
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message:
                    "Metadata value for '\(key)' is a \(type(of: value)): the PostgreSQL store keeps property-list values only (String, numbers, Bool, Data, Date, Decimal, UUID, arrays and [String: …] dictionaries of them)",
                key: key)
        }
    }

    private static func untag(_ object: Any) -> (any Sendable)? {
        guard let tagged = object as? [String: Any], tagged.count == 1, let (tag, value) = tagged.first else { return nil }
        switch tag {
        case "b": return value as? Bool
        case "s": return value as? String
        case "i": return (value as? String).flatMap { Int($0) }
        case "i64": return (value as? String).flatMap { Int64($0) }
        case "i32": return (value as? String).flatMap { Int32($0) }
        case "i16": return (value as? String).flatMap { Int16($0) }
        case "u64": return (value as? String).flatMap { UInt64($0) }
        case "d": return (value as? String).flatMap { Double($0) }
        case "f": return (value as? String).flatMap { Float($0) }
        case "dec": return (value as? String).flatMap { Decimal(string: $0, locale: PostgreSQLValueMapping.posix) }
        case "data": return (value as? String).flatMap { Data(base64Encoded: $0) }
        case "date": return (value as? String).flatMap { Double($0) }.map { Date(timeIntervalSinceReferenceDate: $0) }
        case "uuid": return (value as? String).flatMap { UUID(uuidString: $0) }
        case "a":
            guard let array = value as? [Any] else { return nil }
            let elements = array.compactMap(untag)
            if elements.count == array.count, let strings = elements as? [String] { return strings }
            return elements
        case "m":
            guard let dictionary = value as? [String: Any] else { return nil }
            var result: [String: any Sendable] = [:]
            for (key, element) in dictionary { result[key] = untag(element) }
            if let strings = result as? [String: String] { return strings }
            return result
        default: return nil
        }
    }
}
