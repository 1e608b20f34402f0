import Foundation

/// Turns the expression tree of a Foundation `Predicate` (what `#Predicate` builds) into Strata's
/// ``PredicateNode``, so that the SQL compiler and the in-memory evaluator serve it as they serve
/// a format string. The tree is walked generically: each supported `PredicateExpressions` type
/// conforms to ``MacroTranslatable`` below and a node reaches its children by dynamic casts, so
/// any combination of supported nodes translates and anything else is refused with an error
/// naming it. Key paths are turned into Strata key names by `keyNames`, which the object layer
/// supplies (see `Sources/Strata/Objects/KeyPathKeys.swift`). Pure: usable on any thread.
struct PredicateMacroTranslation {
    /// The components of a key path's key names (`["department"]`, `["department", "name"]`), or
    /// an error naming the key path.
    let keyNames: (AnyKeyPath) throws -> [String]
    /// What each `Variable` of the tree stands for: the input is `SELF`, a closure parameter of
    /// `flatMap` the unwrapped value, one of `contains(where:)` a SUBQUERY variable.
    private var variables: [PredicateExpressions.VariableID: ExpressionNode] = [:]
    /// The next SUBQUERY variable's number.
    private var nextVariable = 1

    init(keyNames: @escaping (AnyKeyPath) throws -> [String]) {
        self.keyNames = keyNames
    }

    /// Translates `predicate`.
    static func translate<Input>(
        _ predicate: Predicate<Input>, keyNames: @escaping (AnyKeyPath) throws -> [String]
    ) throws -> PredicateNode {
        var translation = PredicateMacroTranslation(keyNames: keyNames)
        translation.variables[predicate.variable.key] = .evaluatedObject
        return try translation.predicate(predicate.expression)
    }

    /// The error for a construct Strata cannot run.
    static func unsupported(_ what: String) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: "#Predicate: \(what) is not supported")
    }

    /// A readable name of an expression node's type (`SequenceStartsWith`, `Arithmetic`).
    static func name(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        let plain = full.split(separator: "<", maxSplits: 1).first.map(String.init) ?? full
        return plain.replacingOccurrences(of: "PredicateExpressions.", with: "")
    }

    /// A sub-tree as a predicate: a Bool-valued node, or a Bool expression compared with true.
    mutating func predicate(_ expression: Any) throws -> PredicateNode {
        guard let node = expression as? any MacroTranslatable else { throw Self.refusal(of: expression) }
        switch try node.translate(into: &self) {
        case .predicate(let predicate): return predicate
        case .expression(let value):
            return .comparison(ComparisonNode(modifier: .direct, lhs: value, op: .equal, options: [], rhs: .constant(.bool(true))))
        }
    }

    /// A sub-tree as a value expression: a predicate in value position becomes a TERNARY.
    mutating func expression(_ expression: Any) throws -> ExpressionNode {
        guard let node = expression as? any MacroTranslatable else { throw Self.refusal(of: expression) }
        switch try node.translate(into: &self) {
        case .expression(let value): return value
        case .predicate(let predicate): return .conditional(predicate, .constant(.bool(true)), .constant(.bool(false)))
        }
    }

    /// The error for an expression node no conformance covers.
    static func refusal(of expression: Any) -> StrataError {
        unsupported("the expression '\(name(of: expression))'")
    }

    /// Binds a closure's variable to what it stands for while `body` runs.
    mutating func with<T>(
        _ variable: PredicateExpressions.VariableID, as value: ExpressionNode, _ body: (inout PredicateMacroTranslation) throws -> T
    ) rethrows -> T {
        let saved = variables[variable]
        variables[variable] = value
        defer { variables[variable] = saved }
        return try body(&self)
    }

    /// A fresh SUBQUERY variable name.
    mutating func freshVariable() -> String {
        defer { nextVariable += 1 }
        return "v\(nextVariable)"
    }

    /// What a variable stands for.
    func value(of variable: PredicateExpressions.VariableID) throws -> ExpressionNode {
        guard let value = variables[variable] else { throw Self.unsupported("a variable used outside its closure") }
        return value
    }

    /// `base` followed by `components`.
    static func append(_ components: [String], to base: ExpressionNode) -> ExpressionNode {
        switch base {
        case .evaluatedObject: return .keyPath(components)
        case .keyPath(let head): return .keyPath(head + components)
        case .keyPathFrom(let root, let head): return .keyPathFrom(root, head + components)
        default: return .keyPathFrom(base, components)
        }
    }

    /// `operand` when it can be a string (a constant list or number is refused: string tests on
    /// collections have no meaning in the model).
    static func stringOperand(_ operand: ExpressionNode, of method: String) throws -> ExpressionNode {
        if case .constant(let value) = operand {
            switch value {
            case .string, .null: break
            default: throw unsupported("'\(method)' of a non-string value")
            }
        }
        if case .aggregate = operand { throw unsupported("'\(method)' of a collection") }
        return operand
    }

    /// A comparison node.
    static func compare(_ lhs: ExpressionNode, _ op: ComparisonOperator, _ rhs: ExpressionNode) -> PredicateNode {
        .comparison(ComparisonNode(modifier: .direct, lhs: lhs, op: op, options: [], rhs: rhs))
    }
}

/// What a node of a `#Predicate` tree translates to.
enum MacroTerm {
    /// A Boolean condition.
    case predicate(PredicateNode)
    /// A value.
    case expression(ExpressionNode)
}

/// A `PredicateExpressions` node Strata can translate.
protocol MacroTranslatable {
    /// The node's translation; children are translated through `translation`.
    func translate(into translation: inout PredicateMacroTranslation) throws -> MacroTerm
}

extension PredicateExpressions.Conjunction: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .predicate(.and([try t.predicate(lhs), try t.predicate(rhs)]))
    }
}

extension PredicateExpressions.Disjunction: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .predicate(.or([try t.predicate(lhs), try t.predicate(rhs)]))
    }
}

extension PredicateExpressions.Negation: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .predicate(.not(try t.predicate(wrapped)))
    }
}

extension PredicateExpressions.Equal: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .predicate(PredicateMacroTranslation.compare(try t.expression(lhs), .equal, try t.expression(rhs)))
    }
}

extension PredicateExpressions.NotEqual: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .predicate(PredicateMacroTranslation.compare(try t.expression(lhs), .notEqual, try t.expression(rhs)))
    }
}

extension PredicateExpressions.Comparison: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let operation: ComparisonOperator
        switch op {
        case .lessThan: operation = .lessThan
        case .lessThanOrEqual: operation = .lessThanOrEqual
        case .greaterThan: operation = .greaterThan
        case .greaterThanOrEqual: operation = .greaterThanOrEqual
        @unknown default: throw PredicateMacroTranslation.unsupported("the comparison '\(op)'")
        }
        return .predicate(PredicateMacroTranslation.compare(try t.expression(lhs), operation, try t.expression(rhs)))
    }
}

extension PredicateExpressions.Arithmetic: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let function: String
        switch op {
        case .add: function = "add:to:"
        case .subtract: function = "from:subtract:"
        case .multiply: function = "multiply:by:"
        @unknown default: throw PredicateMacroTranslation.unsupported("the arithmetic operator '\(op)'")
        }
        return .expression(.function(function, [try t.expression(lhs), try t.expression(rhs)]))
    }
}

extension PredicateExpressions.FloatDivision: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .expression(.function("divide:by:", [try t.expression(lhs), try t.expression(rhs)]))
    }
}

extension PredicateExpressions.ClosedRange: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .expression(.aggregate([try t.expression(lower), try t.expression(upper)]))
    }
}

extension PredicateExpressions.RangeExpressionContains: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        // Only a closed range `(a...b).contains(x)` is `x BETWEEN {a, b}`; the others are refused.
        guard range is any MacroClosedRange else { throw PredicateMacroTranslation.refusal(of: range) }
        return .predicate(PredicateMacroTranslation.compare(try t.expression(element), .between, try t.expression(range)))
    }
}

extension PredicateExpressions.Filter: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        // `collection.filter { … }` is `SUBQUERY(collection, $v, …)`; its `count` is `.@count`.
        let collection = try t.expression(sequence)
        let name = t.freshVariable()
        let condition = try t.with(variable.key, as: .variable(name)) { try $0.predicate(filter) }
        return .expression(.subquery(collection, name, condition))
    }
}

extension PredicateExpressions.UnaryMinus: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        .expression(.function("from:subtract:", [.constant(.integer(0)), try t.expression(wrapped)]))
    }
}

extension PredicateExpressions.Value: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        guard let constant = PredicateValue(any: value) else {
            throw PredicateMacroTranslation.unsupported("a constant of type \(type(of: value))")
        }
        return .expression(.constant(constant))
    }
}

extension PredicateExpressions.NilLiteral: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm { .expression(.constant(.null)) }
}

extension PredicateExpressions.Variable: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm { .expression(try t.value(of: key)) }
}

extension PredicateExpressions.KeyPath: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let base = try t.expression(root)
        if let special = try MacroKeyPaths.special(keyPath, on: base) { return special }
        return .expression(PredicateMacroTranslation.append(try t.keyNames(keyPath), to: base))
    }
}

extension PredicateExpressions.SequenceStartsWith: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let start = try PredicateMacroTranslation.stringOperand(try t.expression(prefix), of: "starts(with:)")
        return .predicate(PredicateMacroTranslation.compare(try t.expression(base), .beginsWith, start))
    }
}

extension PredicateExpressions.CollectionContainsCollection: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let part = try PredicateMacroTranslation.stringOperand(try t.expression(other), of: "contains(_:)")
        return .predicate(PredicateMacroTranslation.compare(try t.expression(base), .contains, part))
    }
}

extension PredicateExpressions.SequenceContains: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        // `collection.contains(x)` is `x IN collection` (a constant list or a to-many key path).
        .predicate(PredicateMacroTranslation.compare(try t.expression(element), .in, try t.expression(sequence)))
    }
}

extension PredicateExpressions.SequenceContainsWhere: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let collection = try t.expression(sequence)
        let name = t.freshVariable()
        let condition = try t.with(variable.key, as: .variable(name)) { try $0.predicate(test) }
        let count = ExpressionNode.keyPathFrom(.subquery(collection, name, condition), ["@count"])
        return .predicate(PredicateMacroTranslation.compare(count, .greaterThan, .constant(.integer(0))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let collection = try t.expression(sequence)
        let name = t.freshVariable()
        let condition = try t.with(variable.key, as: .variable(name)) { try $0.predicate(test) }
        let count = ExpressionNode.keyPathFrom(.subquery(collection, name, .not(condition)), ["@count"])
        return .predicate(PredicateMacroTranslation.compare(count, .equal, .constant(.integer(0))))
    }
}

extension PredicateExpressions.OptionalFlatMap: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        // `x.flatMap { $0.y }` (and `x?.y`): nil propagates through key paths as it does in
        // the format language, so the variable stands for `x` itself.
        let unwrapped = try t.expression(wrapped)
        return try t.with(variable.key, as: unwrapped) { .expression(try $0.expression(transform)) }
    }
}

extension PredicateExpressions.NilCoalesce: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let value = try t.expression(lhs)
        let fallback = try t.expression(rhs)
        let isNil = PredicateMacroTranslation.compare(value, .equal, .constant(.null))
        return .expression(.conditional(isNil, fallback, value))
    }
}

extension PredicateExpressions.ForcedUnwrap: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        // A nil makes the comparison false, where Swift would trap: never crash on data.
        .expression(try t.expression(inner))
    }
}

extension PredicateExpressions.Conditional: MacroTranslatable {
    func translate(into t: inout PredicateMacroTranslation) throws -> MacroTerm {
        let condition = try t.predicate(test)
        let whenTrue = try t.expression(trueBranch)
        let whenFalse = try t.expression(falseBranch)
        // In a Boolean position the caller compares the TERNARY with true.
        return .expression(.conditional(condition, whenTrue, whenFalse))
    }
}

/// A closed range node (the only range `contains` takes).
protocol MacroClosedRange {}

extension PredicateExpressions.ClosedRange: MacroClosedRange {}

/// Key paths of standard types that have a meaning in Strata's language.
enum MacroKeyPaths {
    /// `string.count` → `length:(string)`, `collection.count` → `@count`, `isEmpty` →
    /// a count of zero; `nil` for a key path of a model class.
    static func special(_ keyPath: AnyKeyPath, on base: ExpressionNode) throws -> MacroTerm? {
        let root = type(of: keyPath).rootType
        if root == String.self {
            if keyPath == \String.count { return .expression(.function("length:", [base])) }
            if keyPath == \String.isEmpty {
                return .predicate(PredicateMacroTranslation.compare(.function("length:", [base]), .equal, .constant(.integer(0))))
            }
            throw PredicateMacroTranslation.unsupported("the String property '\(keyPath)'")
        }
        if let collection = root as? any MacroCountable.Type {
            if keyPath == collection.countKeyPath { return .expression(PredicateMacroTranslation.append(["@count"], to: base)) }
            if keyPath == collection.isEmptyKeyPath {
                let count = PredicateMacroTranslation.append(["@count"], to: base)
                return .predicate(PredicateMacroTranslation.compare(count, .equal, .constant(.integer(0))))
            }
            throw PredicateMacroTranslation.unsupported("the collection property '\(keyPath)'")
        }
        return nil
    }
}

/// Collections whose `count` and `isEmpty` translate to `@count`.
protocol MacroCountable {
    /// `\Self.count`.
    static var countKeyPath: AnyKeyPath { get }
    /// `\Self.isEmpty`.
    static var isEmptyKeyPath: AnyKeyPath { get }
}

extension Set: MacroCountable {
    static var countKeyPath: AnyKeyPath { \Set.count }
    static var isEmptyKeyPath: AnyKeyPath { \Set.isEmpty }
}

extension Array: MacroCountable {
    static var countKeyPath: AnyKeyPath { \Array.count }
    static var isEmptyKeyPath: AnyKeyPath { \Array.isEmpty }
}
