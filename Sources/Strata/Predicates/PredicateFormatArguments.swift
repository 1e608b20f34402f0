import Foundation

/// The values format specifiers stand for: what the parser makes of `%@`, `%d`, `%f`, `%s`… and
/// their arguments (also used by ``PredicateTemplates`` to substitute new arguments).
extension PredicateParser {
    /// Whether a specifier (by its last letter) takes a value argument: `%@`, `%d`… `%f`… `%s`.
    static func specifierTakesValue(_ letter: Character) -> Bool {
        switch letter {
        case "@", "d", "i", "u", "D", "U", "x", "X", "o", "c", "f", "e", "g", "F", "E", "G", "a", "A", "s", "S": return true
        default: return false
        }
    }

    /// The node of a value specifier's argument (what `%@`, `%d`, `%f`, `%s` stand for); throws
    /// for an argument of the wrong type and for `%%` or an unknown specifier.
    static func argumentNode(_ spec: String, _ argument: Any?, offset: Int) throws -> ExpressionNode {
        let letter = spec.last ?? "@"
        switch letter {
        case "@":
            // A value of a common type (no expression) converts without the cast to an expression.
            if let argument, let value = PredicateValue.common(argument) { return .constant(value) }
            if let expression = argument as? ObjectExpression { return expression.node }
            guard let value = PredicateValue(any: argument) else {
                throw PredicateSyntaxError(message: "'%@' argument of type \(argument.map { "\(type(of: $0))" } ?? "nil") cannot be used in a predicate", offset: offset)
            }
            return .constant(value)
        case "d", "i", "u", "D", "U", "x", "X", "o", "c":
            guard let argument, case .some(.exact(let value)) = AttributeCodec.integerValue(argument) else {
                throw PredicateSyntaxError(message: "'%\(spec)' needs an integer argument, got \(argument.map { "\(type(of: $0))" } ?? "nil")", offset: offset)
            }
            return .constant(.integer(value))
        case "f", "e", "g", "F", "E", "G", "a", "A":
            guard let argument, let value = AttributeCodec.doubleValue(argument) else {
                throw PredicateSyntaxError(message: "'%\(spec)' needs a floating-point argument, got \(argument.map { "\(type(of: $0))" } ?? "nil")", offset: offset)
            }
            return .constant(.double(value))
        case "s", "S":
            guard let text = argument as? String else {
                throw PredicateSyntaxError(message: "'%\(spec)' needs a string argument", offset: offset)
            }
            return .constant(.string(text))
        case "%":
            throw PredicateSyntaxError(message: "'%%' is not valid in a predicate", offset: offset)
        default:
            throw PredicateSyntaxError(message: "Unknown format specifier '%\(spec)'", offset: offset)
        }
    }
}
