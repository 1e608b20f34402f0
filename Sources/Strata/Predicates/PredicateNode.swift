import Foundation

/// The parsed form of a predicate: a tree of small, immutable nodes shared by the in-memory
/// evaluator, the SQL compiler and the formatter. Public and read-only (``ObjectPredicate/node``),
/// so that a store that is not SQL can translate a fetch's predicate its own way (as Core Data's
/// incremental stores read `NSComparisonPredicate`s and `NSCompoundPredicate`s); the SQLite
/// store compiles the bound form instead. Usable from any thread.
public indirect enum PredicateNode: Hashable, Sendable {
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
    /// `==` (also `=`).
    case equal = "=="
    /// `!=` (also `<>`).
    case notEqual = "!="
    /// `<`.
    case lessThan = "<"
    /// `<=`.
    case lessThanOrEqual = "<="
    /// `>`.
    case greaterThan = ">"
    /// `>=`.
    case greaterThanOrEqual = ">="
    /// `MATCHES`: the whole string matches a regular expression.
    case matches = "MATCHES"
    /// `LIKE`: `*` and `?` wildcards.
    case like = "LIKE"
    /// `BEGINSWITH`.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`.
    case endsWith = "ENDSWITH"
    /// `CONTAINS`: a substring, or an element of a collection.
    case contains = "CONTAINS"
    /// `IN`: an element of the right-hand collection (or a substring of the right-hand string).
    case `in` = "IN"
    /// `BETWEEN {low, high}`, inclusive.
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
///
/// A `Sendable` value: use it on any thread.
public struct ComparisonNode: Hashable, Sendable {
    var modifier: ComparisonModifier
    /// The left-hand expression.
    public internal(set) var lhs: ExpressionNode
    var op: ComparisonOperator
    var options: ComparisonOptions
    /// The right-hand expression.
    public internal(set) var rhs: ExpressionNode

    /// `ANY`, `ALL`, `NONE`, or `.direct` (Core Data's `comparisonPredicateModifier`).
    public var comparisonModifier: ObjectPredicate.Modifier { ObjectPredicate.Modifier(rawValue: modifier.rawValue) ?? .direct }
    /// The operator (Core Data's `predicateOperatorType`).
    public var comparisonOperator: ObjectPredicate.Operator { ObjectPredicate.Operator(rawValue: op.rawValue) ?? .equalTo }
    /// `[c]`, `[d]`, `[n]` (Core Data's `options`).
    public var comparisonOptions: ObjectPredicate.Options { ObjectPredicate.Options(rawValue: options.rawValue) }
}

/// The parsed form of an expression (see ``PredicateNode``). Public and read-only.
///
/// A `Sendable` value: use it on any thread.
public indirect enum ExpressionNode: Hashable, Sendable {
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

extension PredicateNode {
    /// Whether the tree calls the function `name` anywhere (`now` makes a resolved predicate
    /// depend on when it was resolved).
    func callsFunction(_ name: String) -> Bool {
        switch self {
        case .constant: return false
        case .and(let terms), .or(let terms): return terms.contains { $0.callsFunction(name) }
        case .not(let term): return term.callsFunction(name)
        case .comparison(let comparison): return comparison.lhs.callsFunction(name) || comparison.rhs.callsFunction(name)
        }
    }
}

extension ExpressionNode {
    /// Whether the tree calls the function `name` anywhere.
    func callsFunction(_ name: String) -> Bool {
        switch self {
        case .constant, .evaluatedObject, .variable, .keyPath: return false
        case .keyPathFrom(let base, _): return base.callsFunction(name)
        case .function(let function, let arguments): return function == name || arguments.contains { $0.callsFunction(name) }
        case .aggregate(let arguments): return arguments.contains { $0.callsFunction(name) }
        case .subquery(let collection, _, let predicate): return collection.callsFunction(name) || predicate.callsFunction(name)
        case .conditional(let condition, let whenTrue, let whenFalse):
            return condition.callsFunction(name) || whenTrue.callsFunction(name) || whenFalse.callsFunction(name)
        }
    }
}
