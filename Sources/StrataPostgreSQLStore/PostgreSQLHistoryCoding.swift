import Foundation
import Strata
import StrataPostgreSQL

/// How a PostgreSQL store keeps a history change's property names and tombstone in text
/// columns (`PostgreSQLHistoryTables`): the names as a JSON array, the tombstone as a JSON
/// object from attribute name to the value in the form its column would hold
/// (`PostgreSQLValueMapping.parameter`), tagged with that form — `{"t": text}`, `{"i": "42"}`,
/// `{"d": "0.1"}`, `{"b": true}`, `{"x": base64}`, `{"u": uuid}` — so every attribute type
/// (transformables and Decimals included) comes back as the value it was. Stateless; any thread.
enum PostgreSQLHistoryCoding {
    /// `names` as JSON text.
    static func encode(properties names: [String]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: names), as: UTF8.self)
    }

    /// The names `text` holds; nil for text that is not a JSON array of strings.
    static func decodeProperties(_ text: String) -> [String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }

    /// `tombstone` (values of `entity`'s attributes by name) as JSON text. Throws what
    /// `PostgreSQLValueMapping.parameter` throws for a value that does not fit its attribute.
    static func encode(tombstone: [String: Any], of entity: EntityDescription) throws -> String {
        var object: [String: Any] = [:]
        for (name, value) in tombstone {
            guard let attribute = entity.attributesByName[name] else { continue }
            switch try PostgreSQLValueMapping.parameter(value, for: attribute) {
            case .null: continue
            case .text(let text): object[name] = ["t": text]
            case .int64(let int): object[name] = ["i": String(int)]
            case .double(let double): object[name] = ["d": String(double)]
            case .bool(let bool): object[name] = ["b": bool]
            case .bytes(let data): object[name] = ["x": data.base64EncodedString()]
            case .uuid(let uuid): object[name] = ["u": uuid.uuidString]
            }
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The tombstone `text` holds for `entity`. Throws 134070 naming the attribute for text it
    /// did not make (a row written by another program).
    static func decodeTombstone(_ text: String, of entity: EntityDescription) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw damaged("is not a JSON object", entity: entity, key: nil)
        }
        var values: [String: Any] = [:]
        for (name, tagged) in object {
            guard let attribute = entity.attributesByName[name] else { continue }
            guard let pair = tagged as? [String: Any], pair.count == 1, let (tag, raw) = pair.first, let value = parameter(tag: tag, raw: raw) else {
                throw damaged("holds a value of '\(name)' it cannot read", entity: entity, key: name)
            }
            guard let decoded = try PostgreSQLValueMapping.value(of: value, for: attribute) else { continue }
            values[name] = decoded
        }
        return values
    }

    /// The column form a tag and its JSON value stand for.
    private static func parameter(tag: String, raw: Any) -> PostgreSQLValue? {
        switch tag {
        case "t": return (raw as? String).map { .text($0) }
        case "i": return (raw as? String).flatMap { Int64($0) }.map { .int64($0) }
        case "d": return (raw as? String).flatMap { Double($0) }.map { .double($0) }
        case "b": return (raw as? Bool).map { .bool($0) }
        case "x": return (raw as? String).flatMap { Data(base64Encoded: $0) }.map { .bytes($0) }
        case "u": return (raw as? String).flatMap { UUID(uuidString: $0) }.map { .uuid($0) }
        default: return nil
        }
    }

    private static func damaged(_ what: String, entity: EntityDescription, key: String?) -> StrataError {
        StrataError(
            code: StrataError.Code.persistentStoreOperation, message: "A history tombstone of \(entity.name) in the PostgreSQL store \(what)",
            entityName: entity.name, key: key)
    }
}
