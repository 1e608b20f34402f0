import Foundation

/// Prints predicate and expression trees as canonical format strings that parse back to equal
/// trees.
enum PredicateFormatter {
    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .constant(let value): return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let terms): return terms.map { grouped($0, inside: .and) }.joined(separator: " AND ")
        case .or(let terms): return terms.map { grouped($0, inside: .or) }.joined(separator: " OR ")
        case .not(let inner): return "NOT " + grouped(inner, inside: .not)
        case .comparison(let comparison): return format(comparison)
        }
    }

    private enum Context { case and, or, not }

    private static func grouped(_ node: PredicateNode, inside context: Context) -> String {
        switch (node, context) {
        case (.comparison, _), (.constant, _): return format(node)
        case (.not, .and), (.not, .or), (.not, .not): return format(node)
        default: return "(" + format(node) + ")"
        }
    }

    static func format(_ comparison: ComparisonNode) -> String {
        var text = ""
        switch comparison.modifier {
        case .direct: break
        case .any: text = "ANY "
        case .all: text = "ALL "
        case .none: text = "NONE "
        }
        text += format(comparison.lhs)
        text += " " + comparison.op.rawValue + comparison.options.formatted + " "
        text += format(comparison.rhs)
        return text
    }

    static func format(_ node: ExpressionNode) -> String {
        switch node {
        case .constant(let value): return literal(value)
        case .evaluatedObject: return "SELF"
        case .variable(let name): return "$" + name
        case .keyPath(let components): return keyPath(components)
        case .keyPathFrom(let base, let components):
            let baseText: String
            switch base {
            case .variable, .evaluatedObject, .subquery, .keyPath, .keyPathFrom: baseText = format(base)
            default: baseText = "(" + format(base) + ")"
            }
            return baseText + "." + keyPath(components)
        case .function(let name, let args):
            if let op = ExpressionFunctions.infixOperator(name), args.count == 2 {
                return "(" + format(args[0]) + " " + op + " " + format(args[1]) + ")"
            }
            if name == "objectFrom:withIndex:", args.count == 2 {
                let index: String
                if case .constant(.string(let word)) = args[1], ["FIRST", "LAST", "SIZE"].contains(word) { index = word } else { index = format(args[1]) }
                return format(args[0]) + "[" + index + "]"
            }
            if name == "castObject:toType:", args.count == 2 {
                return "CAST(" + format(args[0]) + ", " + format(args[1]) + ")"
            }
            let bareName = name.hasSuffix(":") && !name.dropLast().contains(":") ? String(name.dropLast()) : nil
            if let bareName {
                return bareName + ":(" + args.map(format).joined(separator: ", ") + ")"
            }
            if args.isEmpty, !name.contains(":") { return name + "()" }
            return "FUNCTION(" + (args.first.map(format) ?? "SELF") + ", " + literal(.string(name)) + args.dropFirst().map { ", " + format($0) }.joined() + ")"
        case .aggregate(let items): return "{" + items.map(format).joined(separator: ", ") + "}"
        case .subquery(let collection, let variable, let predicate):
            return "SUBQUERY(" + format(collection) + ", $" + variable + ", " + format(predicate) + ")"
        case .conditional(let condition, let whenTrue, let whenFalse):
            return "TERNARY(" + format(condition) + ", " + format(whenTrue) + ", " + format(whenFalse) + ")"
        }
    }

    static func keyPath(_ components: [String]) -> String {
        components.map { component -> String in
            if component.hasPrefix("@") { return component }
            if PredicateLexer.keywords.contains(component.uppercased()) { return "#" + component }
            return component
        }.joined(separator: ".")
    }

    static func literal(_ value: PredicateValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let v): return v ? "YES" : "NO"
        case .integer(let v):
            return v == Int64.min ? "CAST(\"\(v)\", \"NSNumber\")" : String(v)
        case .double(let v):
            if v.isNaN { return "CAST(\"nan\", \"NSNumber\")" }
            if v.isInfinite { return v > 0 ? "CAST(\"inf\", \"NSNumber\")" : "CAST(\"-inf\", \"NSNumber\")" }
            let text = String(v)
            if text.contains("e") && !text.contains(".") {
                // 1e+20 has no fraction mark: make sure it parses back as a double.
                return text.replacingOccurrences(of: "e", with: ".0e")
            }
            return text
        case .decimal(let v): return "CAST(" + quoted(DecimalText.canonical(v)) + ", \"NSDecimalNumber\")"
        case .string(let v): return quoted(v)
        case .date(let v): return "CAST(" + String(v.timeIntervalSinceReferenceDate) + ", \"NSDate\")"
        case .data(let v): return "CAST(" + quoted(v.base64EncodedString()) + ", \"NSData\")"
        case .uuid(let v): return "CAST(" + quoted(v.uuidString) + ", \"NSUUID\")"
        case .url(let v): return "CAST(" + quoted(v.absoluteString) + ", \"NSURL\")"
        case .objectID(let v): return "CAST(" + quoted(v.uriRepresentation().absoluteString) + ", \"NSManagedObjectID\")"
        case .objectURI(let v): return "CAST(" + quoted(v.absoluteString) + ", \"NSManagedObjectID\")"
        case .array(let items): return "{" + items.map(literal).joined(separator: ", ") + "}"
        }
    }

    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\0": result += "\\0"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += String(format: "\\u%04x", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
