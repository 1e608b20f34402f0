import Foundation

/// A logical condition on objects, written in Core Data's predicate format language
/// (Core Data's `NSPredicate`, `NSCompoundPredicate` and `NSComparisonPredicate` in one type).
///
/// ```swift
/// let adults = ObjectPredicate(format: "age >= %@ AND name BEGINSWITH[cd] %@", 18, "é")
/// let either = ObjectPredicate.or([adults, ObjectPredicate(format: "isMember == YES")])
/// ```
///
/// Predicates are immutable and `Sendable`: build one anywhere and use it on any queue. The same
/// predicate runs as SQL in a SQLite store and in memory (pending changes, in-memory stores,
/// ``evaluate(with:)``); the two always agree.
///
/// A malformed format string does not trap. `init(format:)` keeps the syntax error, which any
/// fetch using the predicate throws (with the offset and a caret under the bad token); use
/// ``init(validatingFormat:_:)`` to get the error at once.
public final class ObjectPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The parsed predicate, for stores that translate predicates themselves (a predicate that
    /// did not parse is `.constant(false)` here, and fetching with it throws its syntax error).
    public let node: PredicateNode
    /// The syntax error of a malformed format string, or `nil`.
    public let syntaxError: StrataError?
    /// The predicate as resolved for the entity of the managed object last evaluated
    /// (`Objects/ManagedObject+KeyValueReadable.swift`).
    let resolvedForObjects = ResolvedPredicateCache()

    init(node: PredicateNode) {
        self.node = node
        self.syntaxError = nil
    }

    private init(error: StrataError) {
        self.node = .constant(false)
        self.syntaxError = error
    }

    /// Parses `format`, substituting `args` for `%@`, `%K`, `%d`, `%f`… in order. A malformed
    /// string gives a predicate carrying ``syntaxError``; fetching with it throws that error.
    public convenience init(format: String, _ args: Any...) {
        self.init(format: format, argumentArray: args)
    }

    /// Parses `format` with the arguments in an array.
    public convenience init(format: String, argumentArray: [Any]?) {
        do {
            try self.init(validatingFormat: format, argumentArray: argumentArray ?? [])
        } catch let error as StrataError {
            self.init(error: error)
        } catch {
            self.init(error: StrataError(code: StrataError.Code.coreData, message: "\(error)"))
        }
    }

    /// Parses `format`, throwing a ``StrataError`` (code 134060) with the offset of the bad
    /// token and a caret under it if the string is malformed.
    public convenience init(validatingFormat format: String, _ args: Any...) throws {
        try self.init(validatingFormat: format, argumentArray: args)
    }

    /// Parses `format` with the arguments in an array, throwing on a malformed string.
    public convenience init(validatingFormat format: String, argumentArray: [Any]) throws {
        do {
            self.init(node: try PredicateTemplates.parse(format: format, arguments: argumentArray))
        } catch let error as PredicateSyntaxError {
            throw Self.syntaxError(error, in: format)
        }
    }

    /// A predicate that is always `value` (`TRUEPREDICATE` / `FALSEPREDICATE`).
    public convenience init(value: Bool) {
        self.init(node: .constant(value))
    }

    static func syntaxError(_ error: PredicateSyntaxError, in format: String) -> StrataError {
        // Show the line the error is on, with a caret under the bad token. The line is a slice
        // of the format's scalars, copied once (appending an array of scalars went through a
        // generic path that allocated as it went: a fifth of the predicate fuzzer's time).
        let scalars = format.unicodeScalars
        let bad = scalars.index(scalars.startIndex, offsetBy: max(0, error.offset), limitedBy: scalars.endIndex) ?? scalars.endIndex
        let offset = scalars.distance(from: scalars.startIndex, to: bad)
        var lineStart = bad
        while lineStart > scalars.startIndex && scalars[scalars.index(before: lineStart)] != "\n" { scalars.formIndex(before: &lineStart) }
        let lineEnd = scalars[bad...].firstIndex(of: "\n") ?? scalars.endIndex
        let line = String(scalars[lineStart..<lineEnd])
        let caret = String(repeating: " ", count: scalars.distance(from: lineStart, to: bad)) + "^"
        var result = StrataError(code: StrataError.Code.coreData, message: "Malformed predicate at offset \(offset): \(error.message)")
        result.offset = offset
        result.sourceExcerpt = "    " + line + "\n    " + caret
        return result
    }

    // MARK: Compound predicates

    /// All of `predicates` (an empty list is true).
    public static func and(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        if let error = predicates.lazy.compactMap(\.syntaxError).first { return ObjectPredicate(error: error) }
        return ObjectPredicate(node: predicates.isEmpty ? .constant(true) : (predicates.count == 1 ? predicates[0].node : .and(predicates.map(\.node))))
    }

    /// Any of `predicates` (an empty list is false).
    public static func or(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        if let error = predicates.lazy.compactMap(\.syntaxError).first { return ObjectPredicate(error: error) }
        return ObjectPredicate(node: predicates.isEmpty ? .constant(false) : (predicates.count == 1 ? predicates[0].node : .or(predicates.map(\.node))))
    }

    /// The negation of `predicate`.
    public static func not(_ predicate: ObjectPredicate) -> ObjectPredicate {
        if let error = predicate.syntaxError { return ObjectPredicate(error: error) }
        return ObjectPredicate(node: .not(predicate.node))
    }

    // MARK: Comparison builders

    /// The operators of ``comparison(_:_:_:options:modifier:)``.
    ///
    /// A `Sendable` value: use it on any thread.
    public enum Operator: String, Sendable {
        /// `==`: equal (nil equals only nil).
        case equalTo = "=="
        /// `!=`: not equal.
        case notEqualTo = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=`.
        case lessThanOrEqualTo = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=`.
        case greaterThanOrEqualTo = ">="
        /// `MATCHES`: the whole string matches a regular expression.
        case matches = "MATCHES"
        /// `LIKE`: `*` matches any run of characters, `?` one character.
        case like = "LIKE"
        /// `BEGINSWITH`.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: a substring, or membership for a to-many left side.
        case contains = "CONTAINS"
        /// `IN`: membership in a list, a set or a to-many key path; a substring for strings.
        case `in` = "IN"
        /// `BETWEEN {low, high}`, bounds included.
        case between = "BETWEEN"
    }

    /// Options of a comparison (Core Data's `NSComparisonPredicate.Options`).
    ///
    /// A `Sendable` value: use it on any thread.
    public struct Options: OptionSet, Sendable {
        /// The option bits.
        public let rawValue: UInt8
        /// Creates options from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `[c]`.
        public static let caseInsensitive = Options(rawValue: 1)
        /// `[d]`.
        public static let diacriticInsensitive = Options(rawValue: 2)
        /// `[n]`.
        public static let normalized = Options(rawValue: 4)
    }

    /// How a comparison treats a to-many left side (Core Data's `NSComparisonPredicate.Modifier`).
    ///
    /// A `Sendable` value: use it on any thread.
    public enum Modifier: String, Sendable {
        /// Compare the value itself.
        case direct
        /// `ANY`: some element of the to-many left side matches.
        case any
        /// `ALL`: every element matches (true for none).
        case all
        /// `NONE`: no element matches (true for none).
        case none
    }

    /// A comparison of two expressions, the programmatic form of `lhs op[options] rhs`.
    public static func comparison(
        _ lhs: ObjectExpression, _ op: Operator, _ rhs: ObjectExpression, options: Options = [], modifier: Modifier = .direct
    ) -> ObjectPredicate {
        let node = ComparisonNode(
            modifier: ComparisonModifier(rawValue: modifier.rawValue) ?? .direct, lhs: lhs.node,
            op: ComparisonOperator(rawValue: op.rawValue) ?? .equal, options: ComparisonOptions(rawValue: options.rawValue), rhs: rhs.node)
        return ObjectPredicate(node: .comparison(node))
    }

    /// `key == value`.
    public static func key(_ keyPath: String, equals value: Any?) -> ObjectPredicate {
        comparison(ObjectExpression(forKeyPath: keyPath), .equalTo, ObjectExpression(forConstantValue: value))
    }

    // MARK: Variables

    /// A copy with `$NAME` variables replaced by `variables[NAME]`. Variables without a value
    /// stay in place (a fetch using them throws).
    public func withSubstitutionVariables(_ variables: [String: Any]) -> ObjectPredicate {
        if syntaxError != nil { return self }
        var substitution = VariableSubstitution(values: variables, requireAll: false)
        return ObjectPredicate(node: substitution.substitute(node))
    }

    /// A copy with every `$NAME` variable replaced; throws naming the first variable without a
    /// value or with an unusable value.
    public func substitutingVariables(_ variables: [String: Any]) throws -> ObjectPredicate {
        if let syntaxError { throw syntaxError }
        var substitution = VariableSubstitution(values: variables, requireAll: true)
        let result = substitution.substitute(node)
        if let error = substitution.error { throw error }
        return ObjectPredicate(node: result)
    }

    // MARK: Evaluation

    /// Evaluates the predicate against a managed object, a `[String: Any]` dictionary, or any
    /// value (as `SELF`). A malformed predicate, an unknown key or a type mismatch evaluates to
    /// `false`; use ``evaluate(throwingWith:substitutionVariables:)`` to see the error. Call it on
    /// the object's context's queue when evaluating a managed object.
    ///
    /// A managed object (a fault, a realized object or an unsaved one) is evaluated by the same
    /// resolved predicate and in-memory engine as a fetch of its entity, over its current values
    /// (unsaved changes included): it is true exactly when a fetch would select the object.
    /// Predicates a fetch cannot run (on transient attributes or fetched properties) are
    /// evaluated by key-value coding.
    public func evaluate(with object: Any?) -> Bool {
        (try? evaluate(throwingWith: object)) ?? false
    }

    /// Evaluates the predicate, throwing for a malformed predicate, unknown keys, unset
    /// variables and type mismatches (for a managed object, the errors a fetch would throw).
    public func evaluate(throwingWith object: Any?, substitutionVariables: [String: Any] = [:]) throws -> Bool {
        if let syntaxError { throw syntaxError }
        if let readable = object as? any KeyValueReadable, let result = try readable.evaluateAsFetch(self, variables: substitutionVariables) {
            return result
        }
        var evaluator = DynamicEvaluator(variables: substitutionVariables)
        return try evaluator.evaluate(node, on: object)
    }

    // MARK: Description

    /// The canonical format string; parsing it gives an equal predicate.
    public var predicateFormat: String { PredicateFormatter.format(node) }

    /// The canonical format string, or a note naming the syntax error of a malformed predicate.
    public var description: String { syntaxError.map { "<invalid predicate: \($0.message)>" } ?? predicateFormat }

    /// Whether two predicates have the same parsed form (their canonical format strings are
    /// equal). Callable from any queue.
    public static func == (lhs: ObjectPredicate, rhs: ObjectPredicate) -> Bool {
        lhs.node == rhs.node && (lhs.syntaxError == nil) == (rhs.syntaxError == nil)
    }

    /// Hashes the parsed form, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(node) }
}

/// Replaces `$VARIABLES` in a tree. SUBQUERY variables are left alone inside their subquery.
struct VariableSubstitution {
    let values: [String: Any]
    let requireAll: Bool
    var error: StrataError?
    private var bound: Set<String> = []

    init(values: [String: Any], requireAll: Bool) {
        self.values = values
        self.requireAll = requireAll
    }

    mutating func substitute(_ node: PredicateNode) -> PredicateNode {
        switch node {
        case .constant: return node
        case .and(let terms): return .and(terms.map { substitute($0) })
        case .or(let terms): return .or(terms.map { substitute($0) })
        case .not(let inner): return .not(substitute(inner))
        case .comparison(var comparison):
            comparison.lhs = substitute(comparison.lhs)
            comparison.rhs = substitute(comparison.rhs)
            return .comparison(comparison)
        }
    }

    mutating func substitute(_ node: ExpressionNode) -> ExpressionNode {
        switch node {
        case .variable(let name):
            if bound.contains(name) { return node }
            if let value = values[name] {
                if let expression = value as? ObjectExpression { return expression.node }
                if let converted = PredicateValue(any: value) { return .constant(converted) }
                if error == nil {
                    error = StrataError(code: StrataError.Code.coreData, message: "Substitution variable $\(name) has a value of type \(type(of: value)), which cannot be used in a predicate")
                }
                return node
            }
            if requireAll && error == nil {
                error = StrataError(code: StrataError.Code.coreData, message: "No value was given for substitution variable $\(name)")
            }
            return node
        case .constant, .evaluatedObject, .keyPath: return node
        case .keyPathFrom(let base, let components): return .keyPathFrom(substitute(base), components)
        case .function(let name, let args): return .function(name, args.map { substitute($0) })
        case .aggregate(let items): return .aggregate(items.map { substitute($0) })
        case .subquery(let collection, let variable, let predicate):
            let newCollection = substitute(collection)
            let wasBound = bound.contains(variable)
            bound.insert(variable)
            let newPredicate = substitute(predicate)
            if !wasBound { bound.remove(variable) }
            return .subquery(newCollection, variable, newPredicate)
        case .conditional(let condition, let whenTrue, let whenFalse):
            return .conditional(substitute(condition), substitute(whenTrue), substitute(whenFalse))
        }
    }
}
