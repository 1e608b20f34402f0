import Foundation
import Strata
import StrataPostgreSQL

/// Converts attribute values between their Swift form (what `IncrementalStoreNode` holds) and
/// PostgreSQL, without loss:
///
/// | attribute type | column type | sent as | read back |
/// |---|---|---|---|
/// | integer16/32/64 | `smallint`/`integer`/`bigint` | `int8` | `Int16`/`Int32`/`Int64` |
/// | double, float | `double precision`, `real` | `float8` (shortest round-trip text; NaN, ±∞) | `Double`, `Float` |
/// | decimal | `numeric` | its exact decimal text | `Decimal` from the exact text |
/// | string, uri | `text` | text | `String`, `URL` |
/// | boolean | `boolean` | `bool` | `Bool` |
/// | date | `double precision` | seconds since 2001-01-01 (as Core Data and the SQLite store keep it) | `Date` |
/// | binaryData, transformable | `bytea` | bytes (a transformable's through its value transformer) | `Data`, the transformer's value |
/// | uuid | `uuid` | `uuid` | `UUID` |
///
/// Stateless; usable from any thread.
enum PostgreSQLValueMapping {
    /// The POSIX locale decimal text is read in (a decimal point, no grouping).
    static let posix = Locale(identifier: "en_US_POSIX")

    /// The column type of an attribute type.
    static func columnType(of type: AttributeType) -> String {
        switch type {
        case .integer16: return "smallint"
        case .integer32: return "integer"
        case .integer64: return "bigint"
        case .double, .date: return "double precision"
        case .float: return "real"
        case .decimal: return "numeric"
        case .string, .uri, .objectID, .undefined: return "text"
        case .boolean: return "boolean"
        case .binaryData, .transformable: return "bytea"
        case .uuid: return "uuid"
        }
    }

    /// The parameter for `value` (what `IncrementalStoreNode.value(forKey:)` returned) of
    /// `attribute`. Throws a 1550 ``StrataError`` naming the attribute for a value of another type,
    /// and a 134030 one for a string holding U+0000, which PostgreSQL text cannot store.
    static func parameter(_ value: Any?, for attribute: AttributeDescription) throws -> PostgreSQLValue {
        guard let value else { return .null }
        func wrongType() -> StrataError {
            StrataError(
                code: StrataError.Code.managedObjectValidation,
                message: "A value of type \(type(of: value)) cannot be stored in the PostgreSQL column of \(attribute.entity?.name ?? "?").\(attribute.name) (\(attribute.type.rawValue))",
                entityName: attribute.entity?.name, key: attribute.name)
        }
        switch attribute.type {
        case .integer16:
            guard let int = value as? Int16 else { throw wrongType() }
            return .int64(Int64(int))
        case .integer32:
            guard let int = value as? Int32 else { throw wrongType() }
            return .int64(Int64(int))
        case .integer64:
            guard let int = value as? Int64 else { throw wrongType() }
            return .int64(int)
        case .double:
            guard let double = value as? Double else { throw wrongType() }
            return .double(double)
        case .float:
            guard let float = value as? Float else { throw wrongType() }
            return .double(Double(float))
        case .decimal:
            guard let decimal = value as? Decimal else { throw wrongType() }
            return .text(decimal.isNaN ? "NaN" : decimal.description)
        case .string:
            guard let string = value as? String else { throw wrongType() }
            guard !string.utf8.contains(0) else {
                // PostgreSQL text cannot hold U+0000: say which attribute, before the server
                // refuses a parameter by number.
                throw StrataError(
                    code: StrataError.Code.persistentStoreSave,
                    message: "PostgreSQL text cannot hold U+0000 (NUL): the value of \(attribute.entity?.name ?? "?").\(attribute.name) has one",
                    entityName: attribute.entity?.name, key: attribute.name)
            }
            return .text(string)
        case .boolean:
            guard let bool = value as? Bool else { throw wrongType() }
            return .bool(bool)
        case .date:
            guard let date = value as? Date else { throw wrongType() }
            return .double(date.timeIntervalSinceReferenceDate)
        case .binaryData:
            guard let data = value as? Data else { throw wrongType() }
            return .bytes(data)
        case .uuid:
            guard let uuid = value as? UUID else { throw wrongType() }
            return .uuid(uuid)
        case .uri:
            guard let url = value as? URL else { throw wrongType() }
            return .text(url.absoluteString)
        case .transformable:
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            guard let transformer = AttributeValueTransformers.transformer(forName: name) else {
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "No value transformer is registered under the name '\(name)'",
                    entityName: attribute.entity?.name, key: attribute.name)
            }
            return .bytes(try transformer.transformedValue(value))
        case .objectID, .undefined:
            throw wrongType()
        }
    }

    /// The Swift value of column `column` of `row` for `attribute` (`nil` for NULL). Throws a
    /// ``StrataError`` when the column holds something the attribute cannot (a row written by
    /// another program).
    static func value(of row: PostgreSQLRow, column: Int, for attribute: AttributeDescription) throws -> Any? {
        if try row.isNull(column) { return nil }
        func damaged() -> StrataError {
            StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "The PostgreSQL column of \(attribute.entity?.name ?? "?").\(attribute.name) holds a value that is not a \(attribute.type.rawValue)",
                entityName: attribute.entity?.name, key: attribute.name)
        }
        switch attribute.type {
        case .integer16:
            guard let int = try row.int64(column), let value = Int16(exactly: int) else { throw damaged() }
            return value
        case .integer32:
            guard let int = try row.int64(column), let value = Int32(exactly: int) else { throw damaged() }
            return value
        case .integer64:
            return try row.int64(column)
        case .double:
            return try row.double(column)
        case .float:
            guard let text = try row.string(column), let float = Float(text) else { throw damaged() }
            return float
        case .decimal:
            guard let text = try row.string(column), let decimal = Decimal(string: text, locale: posix) else { throw damaged() }
            return decimal
        case .string:
            return try row.string(column)
        case .boolean:
            return try row.bool(column)
        case .date:
            guard let seconds = try row.double(column) else { throw damaged() }
            return Date(timeIntervalSinceReferenceDate: seconds)
        case .binaryData:
            return try row.data(column)
        case .uuid:
            return try row.uuid(column)
        case .uri:
            guard let text = try row.string(column) else { return nil }
            return URL(string: text)
        case .transformable:
            guard let data = try row.data(column) else { return nil }
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            return try AttributeValueTransformers.transformer(forName: name)?.reverseTransformedValue(data)
        case .objectID, .undefined:
            return nil
        }
    }

    /// Column `column` of `row` for an attribute of `type` as an `IncrementalStoreNode.ColumnValue`
    /// (the form the node keeps, so no Swift value is made in between; `.null` for NULL). Throws a
    /// ``StrataError`` naming the attribute (`attribute` is asked for only then, so reading rows
    /// retains no description per column) when the column's text is not of its type (a row
    /// written by another program); the node checks what the attribute can take.
    static func columnValue(of row: PostgreSQLRow, column: Int, type: AttributeType, attribute: () -> AttributeDescription?) throws -> IncrementalStoreNode.ColumnValue {
        func damaged() -> StrataError {
            let attribute = attribute()
            return StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "The PostgreSQL column of \(attribute?.entity?.name ?? "?").\(attribute?.name ?? "?") holds a value that is not a \(type.rawValue)",
                entityName: attribute?.entity?.name, key: attribute?.name)
        }
        switch type {
        case .integer16, .integer32, .integer64:
            return try row.int64(column).map { .integer($0) } ?? .null
        case .double, .date:
            return try row.double(column).map { .real($0) } ?? .null
        case .float:
            // Parsed as a Float: its text is float4's shortest form, which a Double would round
            // differently.
            guard let text = try row.string(column) else { return .null }
            guard let float = Float(text) else { throw damaged() }
            return .real(Double(float))
        case .decimal, .string, .uri:
            return try row.string(column).map { .text($0) } ?? .null
        case .boolean:
            return try row.bool(column).map { .integer($0 ? 1 : 0) } ?? .null
        case .binaryData, .transformable:
            return try row.data(column).map { .blob($0) } ?? .null
        case .uuid:
            return try row.uuid(column).map { uuid in .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) } ?? .null
        case .objectID, .undefined:
            return .null
        }
    }

    /// The Swift value of `attribute` that the column form `value` stands for (the inverse of
    /// ``parameter(_:for:)``; `nil` for `.null`). Throws 134070 naming the attribute for a form
    /// the attribute cannot hold.
    static func value(of value: PostgreSQLValue, for attribute: AttributeDescription) throws -> Any? {
        func damaged() -> StrataError {
            StrataError(
                code: StrataError.Code.persistentStoreOperation,
                message: "A stored value of \(attribute.entity?.name ?? "?").\(attribute.name) is not a \(attribute.type.rawValue)",
                entityName: attribute.entity?.name, key: attribute.name)
        }
        if case .null = value { return nil }
        switch (attribute.type, value) {
        case (.integer16, .int64(let int)): return try Int16(exactly: int) ?? { throw damaged() }()
        case (.integer32, .int64(let int)): return try Int32(exactly: int) ?? { throw damaged() }()
        case (.integer64, .int64(let int)): return int
        case (.double, .double(let double)): return double
        case (.float, .double(let double)): return Float(double)
        case (.decimal, .text(let text)):
            if text == "NaN" { return Decimal.nan }
            return try Decimal(string: text, locale: posix) ?? { throw damaged() }()
        case (.string, .text(let text)): return text
        case (.boolean, .bool(let bool)): return bool
        case (.date, .double(let seconds)): return Date(timeIntervalSinceReferenceDate: seconds)
        case (.binaryData, .bytes(let data)): return data
        case (.uuid, .uuid(let uuid)): return uuid
        case (.uri, .text(let text)): return URL(string: text)
        case (.transformable, .bytes(let data)):
            let name = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            return try AttributeValueTransformers.transformer(forName: name)?.reverseTransformedValue(data)
        default: throw damaged()
        }
    }

    /// `keys` as a PostgreSQL `bigint[]` literal, for a `$n::bigint[]` parameter.
    static func keyArray<Keys: Sequence<Int64>>(_ keys: Keys) -> PostgreSQLValue {
        .text("{" + keys.map(String.init).joined(separator: ",") + "}")
    }

    /// `strings` as a PostgreSQL `text[]` literal, for a `$n::text[]` parameter (each element
    /// double-quoted, with `"` and `\` escaped).
    static func textArray<Strings: Sequence<String>>(_ strings: Strings) -> PostgreSQLValue {
        let elements = strings.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        return .text("{" + elements.joined(separator: ",") + "}")
    }
}
