import Foundation

/// The built-in functions of expressions, by Core Data's names.
enum ExpressionFunctions {
    /// Function name → number of arguments (nil: any number ≥ 1).
    static let arity: [String: Int?] = [
        "sum:": nil, "count:": nil, "min:": nil, "max:": nil, "average:": nil, "median:": nil, "mode:": nil, "stddev:": nil,
        "add:to:": 2, "from:subtract:": 2, "multiply:by:": 2, "divide:by:": 2, "modulus:by:": 2,
        "sqrt:": 1, "log:": 1, "ln:": 1, "raise:toPower:": 2, "exp:": 1, "floor:": 1, "ceiling:": 1, "abs:": 1, "trunc:": 1,
        "uppercase:": 1, "lowercase:": 1, "length:": 1, "now": 0, "random": 0,
        "objectFrom:withIndex:": 2, "castObject:toType:": 2, "noindex:": 1,
    ]

    /// Whether `name` is a known function.
    static func isKnown(_ name: String) -> Bool { arity[name] != nil }

    /// The canonical name of a function written `name(…)` or `name:(…)` with `count` arguments.
    static func canonicalName(_ name: String, argumentCount count: Int) -> String? {
        let candidates = [name, name + ":", name.lowercased(), name.lowercased() + ":"]
        for candidate in candidates {
            guard let expected = arity[candidate] else { continue }
            if let expected, expected != count { continue }
            if expected == nil && count == 0 { continue }
            return candidate
        }
        // Aliases users write in format strings.
        switch (name.lowercased(), count) {
        case ("avg", _) where count > 0: return "average:"
        case ("upper", 1): return "uppercase:"
        case ("lower", 1): return "lowercase:"
        default: return nil
        }
    }

    /// The infix operator for an arithmetic function, if it has one.
    static func infixOperator(_ name: String) -> String? {
        switch name {
        case "add:to:": return "+"
        case "from:subtract:": return "-"
        case "multiply:by:": return "*"
        case "divide:by:": return "/"
        case "raise:toPower:": return "**"
        default: return nil
        }
    }
}
