import Foundation

/// The parsed form of a predicate: a tree of small, immutable nodes shared by the in-memory
/// evaluator, the SQL compiler and the formatter.
indirect enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    /// `a AND b AND …`.
    case and([PredicateNode])
    /// `a OR b OR …`.
    case or([PredicateNode])
    /// `NOT a`.
    case not(PredicateNode)
    /// A comparison of two expressions.
    case comparison(ComparisonNode)
}

/// How a comparison applies to a to-many left side.
enum ComparisonModifier: String, Hashable, Sendable {
    /// Compare the value itself.
    case direct
    /// `ANY` / `SOME`: true if any element matches.
    case any
    /// `ALL`: true if every element matches.
    case all
    /// `NONE`: true if no element matches.
    case none
}

/// The comparison operators of the format language.
enum ComparisonOperator: String, Hashable, Sendable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case matches = "MATCHES"
    case like = "LIKE"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case `in` = "IN"
    case between = "BETWEEN"

    /// Whether the operator takes the `[c]`, `[d]` options.
    var isStringOperator: Bool {
        switch self {
        case .matches, .like, .beginsWith, .endsWith: return true
        default: return false
        }
    }
}

/// One comparison: `modifier lhs op[options] rhs`.
struct ComparisonNode: Hashable, Sendable {
    var modifier: ComparisonModifier
    var lhs: ExpressionNode
    var op: ComparisonOperator
    var options: ComparisonOptions
    var rhs: ExpressionNode
}

/// The parsed form of an expression.
indirect enum ExpressionNode: Hashable, Sendable {
    /// A constant value.
    case constant(PredicateValue)
    /// `SELF`: the object being evaluated.
    case evaluatedObject
    /// `$NAME`: a substitution variable (or a SUBQUERY variable).
    case variable(String)
    /// A key path from the evaluated object: `department.name`, `employees.@count`.
    case keyPath([String])
    /// A key path applied to another expression: `$e.salary`, `SELF.name`.
    case keyPathFrom(ExpressionNode, [String])
    /// A function call, by Core Data's function name (`"sum:"`, `"add:to:"`, `"now"`, …).
    case function(String, [ExpressionNode])
    /// `{a, b, c}`: a literal collection.
    case aggregate([ExpressionNode])
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(ExpressionNode, String, PredicateNode)
    /// `TERNARY(predicate, a, b)`.
    case conditional(PredicateNode, ExpressionNode, ExpressionNode)
}
