import Foundation
import Strata

/// A number an update expression computes, as SQL: a `bigint` when it is an integer, else a
/// `double precision`. A value type.
struct PostgreSQLNumber {
    /// The value as SQL (`NULL` when an operand is).
    var sql: String
    /// Whether the value is an integer (`bigint`); else a double.
    var isInteger: Bool
}

extension PostgreSQLPredicateCompiler {
    /// `node` as SQL that computes, on every row, exactly what Strata's engine computes
    /// (`ScalarFunctions`, SQLite's arithmetic), or nil when SQL cannot promise that.
    ///
    /// What compiles: integer and double attributes (through to-ones too), `@count`, `@min` and
    /// `@max` of those, finite integer and double constants, and `+`, `-`, `*`, `/` and integer
    /// `%` of them. Integers are computed as `bigint` (a 16- or 32-bit column is widened first, as
    /// Strata reads every integer as 64 bits), a double operand makes the operation a `double
    /// precision` one (the integer converted as Swift's `Double(_:)` converts it), `/` is always
    /// a division of doubles and gives `NULL` for a zero divisor, `%` gives `NULL` for a zero
    /// divisor and 0 for −1 (as PostgreSQL's `bigint %` does), and `NULL` in gives `NULL` out.
    ///
    /// Where Strata and PostgreSQL part — an integer result beyond 64 bits (Strata: a double;
    /// PostgreSQL: error 22003), a finite double result beyond the double range or a non-zero one
    /// rounded to zero (Strata: infinity or 0; PostgreSQL: error 22003) — the statement fails
    /// with 22003 and the store leaves the update to Strata. Decimals (Strata computes some with
    /// doubles), floats (a `real` column rounds what SQLite keeps as a double), booleans, dates,
    /// other functions and `TERNARY` do not compile.
    mutating func number(_ node: ExpressionNode) -> PostgreSQLNumber? {
        switch node {
        case .constant(.integer(let value)):
            return PostgreSQLNumber(sql: "CAST(\(parameters.add(.int64(value))) AS bigint)", isInteger: true)
        case .constant(.double(let value)):
            guard value.isFinite else { return nil }
            return PostgreSQLNumber(sql: "CAST(\(parameters.add(.double(value))) AS double precision)", isInteger: false)
        case .function(let name, let arguments):
            guard let symbol = Self.arithmeticOperators[name] else { return scalarNumber(node) }  // count:, min:, max:
            guard arguments.count == 2, let a = number(arguments[0]), let b = number(arguments[1]) else { return nil }
            switch symbol {
            case "/":
                return PostgreSQLNumber(sql: "(\(Self.double(a)) / NULLIF(\(Self.double(b)), 0))", isInteger: false)
            case "%":
                guard a.isInteger && b.isInteger else { return nil }  // fmod: no double % in PostgreSQL
                return PostgreSQLNumber(sql: "(\(a.sql) % NULLIF(\(b.sql), 0))", isInteger: true)
            default:
                if a.isInteger && b.isInteger { return PostgreSQLNumber(sql: "(\(a.sql) \(symbol) \(b.sql))", isInteger: true) }
                return PostgreSQLNumber(sql: "(\(Self.double(a)) \(symbol) \(Self.double(b)))", isInteger: false)
            }
        case .keyPath, .keyPathFrom:
            return scalarNumber(node)
        default:
            return nil
        }
    }

    /// A key path or collection function as a number: an integer or double attribute, `@count`.
    private mutating func scalarNumber(_ node: ExpressionNode) -> PostgreSQLNumber? {
        guard case .scalar(let scalar)? = resolve(node) else { return nil }
        switch scalar.kind {
        case .count: return PostgreSQLNumber(sql: scalar.sql, isInteger: true)
        case .attribute(.integer16), .attribute(.integer32), .attribute(.integer64): return PostgreSQLNumber(sql: "CAST(\(scalar.sql) AS bigint)", isInteger: true)
        case .attribute(.double): return PostgreSQLNumber(sql: scalar.sql, isInteger: false)
        default: return nil
        }
    }

    /// The new value of `attribute` that `expression` gives each row, as SQL, or nil when it
    /// does not compile exactly (see ``number(_:)``): a number for an integer attribute (an
    /// integer expression) or a double attribute (an integer result becomes a double, as in
    /// Strata), or, for an attribute of any other type, a key path to a stored attribute of the
    /// same type (the value copied as it is).
    mutating func newValue(of attribute: AttributeDescription, from expression: ObjectExpression) -> String? {
        guard expression.syntaxError == nil else { return nil }
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            guard let value = number(expression.node), value.isInteger else { return nil }
            return value.sql
        case .double:
            return number(expression.node).map { Self.double($0) }
        case .float, .boolean, .undefined, .objectID:
            return nil
        case .string, .decimal, .date, .binaryData, .uuid, .uri, .transformable:
            guard case .keyPath = expression.node, case .scalar(let scalar)? = resolve(expression.node), case .attribute(let type) = scalar.kind, type == attribute.type
            else { return nil }
            return scalar.sql
        }
    }

    /// Core Data's arithmetic functions and their SQL operators.
    private static let arithmeticOperators = ["add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "modulus:by:": "%"]

    /// `value` as a `double precision`.
    private static func double(_ value: PostgreSQLNumber) -> String {
        value.isInteger ? "CAST(\(value.sql) AS double precision)" : value.sql
    }
}
