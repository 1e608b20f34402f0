import Strata

/// Swift spellings of model names and types.
enum SwiftNames {
    /// Words that must be back-quoted to be a property name.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout", "internal",
        "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct", "subscript",
        "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard",
        "if", "in", "repeat", "return", "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "Self", "super",
        "throws", "true", "try", "Any", "Type",
    ]

    /// `name`, back-quoted when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `employees` → `Employees`, for `addToEmployees`.
    static func capitalized(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.uppercased() + name.dropFirst()
    }

    /// The class name of a `representedClassName`: the last component (`MyApp.Note`, `.Note` →
    /// `Note`), or nil for none, `NSManagedObject` and `ManagedObject` (Xcode generates no code
    /// for an entity without a class of its own).
    static func className(_ represented: String?) -> String? {
        guard let represented, let last = represented.split(separator: ".").last.map(String.init) else { return nil }
        guard !["NSManagedObject", "ManagedObject"].contains(last), isIdentifier(last) else { return nil }
        return last
    }

    /// Whether `name` is a plain Swift identifier (letters, digits, underscores; no leading digit).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSetLite.digits.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { CharacterSetLite.identifier.contains($0) }
    }

    /// The Swift type of an attribute type, or nil when Strata has no typed property for it
    /// (transformable: the app's own type; undefined; object ID).
    static func swiftType(of type: AttributeType) -> String? {
        type == .objectID ? nil : type.valueTypeName
    }

    /// The model-file name of an attribute type, for comments.
    static func modelName(of type: AttributeType) -> String {
        switch type {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .undefined: return "Undefined"
        case .objectID: return "Object ID"
        }
    }
}

/// The ASCII identifier characters (Foundation's `CharacterSet` would do; this keeps the check
/// obvious).
enum CharacterSetLite {
    static let digits: Set<Unicode.Scalar> = Set("0123456789".unicodeScalars)
    static let identifier: Set<Unicode.Scalar> = Set("_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".unicodeScalars)
}
