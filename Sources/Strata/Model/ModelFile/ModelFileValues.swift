import Foundation

/// Xcode's names for types and delete rules, and the strings values are written as in a model
/// file (`defaultValueString`, `minValueString`, `defaultDateTimeInterval`…).
enum ModelFileValues {
    /// Xcode's `attributeType` names. `Composite` (a composite attribute, iOS 17) is not here:
    /// Strata has no composite attributes, so the reader reports it as an error.
    static let attributeTypes: [String: AttributeType] = [
        "Undefined": .undefined, "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64,
        "Decimal": .decimal, "Double": .double, "Float": .float, "String": .string, "Boolean": .boolean,
        "Date": .date, "Binary": .binaryData, "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
        "Object ID": .objectID, "ObjectID": .objectID,
    ]

    /// Xcode's `deletionRule` names.
    static let deleteRules: [String: RelationshipDescription.DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction, "NoAction": .noAction,
    ]

    /// A value of `type` written as `text`, or `nil` when `text` does not read as one.
    static func value(_ text: String, of type: AttributeType) -> (any Sendable)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            // Xcode writes integers plainly, but older files hold "0.0" too.
            let whole = Int64(trimmed) ?? Double(trimmed).flatMap { $0.rounded() == $0 && abs($0) < 9e18 ? Int64($0) : nil }
            guard let whole else { return nil }
            switch type {
            case .integer16: return Int16(exactly: whole)
            case .integer32: return Int32(exactly: whole)
            default: return whole
            }
        case .decimal: return Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        case .double: return Double(trimmed)
        case .float: return Float(trimmed)
        case .string: return text
        case .boolean:
            switch trimmed.uppercased() {
            case "YES", "TRUE", "1": return true
            case "NO", "FALSE", "0": return false
            default: return nil
            }
        case .date: return Double(trimmed).map { Date(timeIntervalSinceReferenceDate: $0) }
        case .uuid: return UUID(uuidString: trimmed)
        case .uri: return URL(string: trimmed)
        case .binaryData, .transformable, .undefined, .objectID: return nil
        }
    }

    /// A whole number (counts and lengths), or `nil`.
    static func count(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return Int(trimmed) ?? Double(trimmed).flatMap { $0.rounded() == $0 && abs($0) < 9e18 ? Int($0) : nil }
    }
}
