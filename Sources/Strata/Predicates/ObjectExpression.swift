import Foundation

/// An expression: a key path, a constant, a variable, a function of other expressions, or a
/// subquery (Core Data's `NSExpression`). Immutable and `Sendable`.
///
/// ```swift
/// let total = ObjectExpression(forFunction: "sum:", arguments: [ObjectExpression(forKeyPath: "salary")])
/// ```
public final class ObjectExpression: Sendable, Hashable, CustomStringConvertible {
    /// The parsed expression (see ``PredicateNode``).
    public let node: ExpressionNode
    /// Why the format string given to ``init(format:_:)`` could not be parsed, if it could not
    /// (using the expression then throws this error, or one naming the bad format).
    public let syntaxError: StrataError?

    init(node: ExpressionNode) {
        self.node = node
        self.syntaxError = nil
    }

    /// Parses an expression in the format language (`"visits + 1"`, `"price * 1.1"`, `"now()"`,
    /// `"FUNCTION(...)"`, key paths, constants), as Core Data's `NSExpression(format:)`. A
    /// malformed format does not trap: the expression carries ``syntaxError``, and any request
    /// that uses it throws.
    public convenience init(format: String, _ args: Any...) {
        do {
            var parser = try PredicateParser(format: format, arguments: args)
            self.init(node: try parser.parseExpression())
        } catch let error as PredicateSyntaxError {
            self.init(malformed: format, error: ObjectPredicate.syntaxError(error, in: format))
        } catch {
            self.init(malformed: format, error: StrataError(code: StrataError.Code.coreData, message: "Malformed expression format '\(format)': \(error)"))
        }
    }

    /// An expression standing for a format that did not parse: binding it fails with an error
    /// naming the format.
    private init(malformed format: String, error: StrataError) {
        self.node = .function("malformed expression '\(format)'", [])
        self.syntaxError = error
    }

    /// A key path such as `"department.name"` or `"employees.@count"`.
    public convenience init(forKeyPath keyPath: String) {
        self.init(node: .keyPath(keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)))
    }

    /// A constant value (numbers, strings, dates, data, UUIDs, URLs, object IDs, objects, and
    /// arrays or sets of them). A value of another type becomes `nil`.
    public convenience init(forConstantValue value: Any?) {
        self.init(node: .constant(PredicateValue(any: value) ?? .null))
    }

    /// `$name`.
    public convenience init(forVariable name: String) {
        self.init(node: .variable(name))
    }

    /// `SELF`.
    public static func expressionForEvaluatedObject() -> ObjectExpression { ObjectExpression(node: .evaluatedObject) }

    /// A function by Core Data's name (`"sum:"`, `"count:"`, `"min:"`, `"max:"`, `"average:"`,
    /// `"add:to:"`, `"from:subtract:"`, `"multiply:by:"`, `"divide:by:"`, `"lowercase:"`, `"now"`, …).
    /// An unknown name or wrong argument count gives an expression whose use throws.
    public convenience init(forFunction name: String, arguments: [ObjectExpression]) {
        self.init(node: .function(name, arguments.map(\.node)))
    }

    /// A literal collection `{a, b, c}`.
    public convenience init(forAggregate items: [ObjectExpression]) {
        self.init(node: PredicateParser.list(items.map(\.node)))
    }

    /// `SUBQUERY(collection, $variable, predicate)`.
    public convenience init(forSubquery collection: ObjectExpression, usingIteratorVariable variable: String, predicate: ObjectPredicate) {
        self.init(node: .subquery(collection.node, variable, predicate.node))
    }

    /// Parses an expression in the format language (`"salary * 1.1"`, `"sum:(salary)"`).
    /// Throws a ``StrataError`` with the offset of the bad token.
    public convenience init(validatingFormat format: String, _ args: Any...) throws {
        do {
            var parser = try PredicateParser(format: format, arguments: args)
            self.init(node: try parser.parseExpression())
        } catch let error as PredicateSyntaxError {
            throw ObjectPredicate.syntaxError(error, in: format)
        }
    }

    /// The key path, for key-path expressions.
    public var keyPath: String? {
        if case .keyPath(let components) = node { return components.joined(separator: ".") }
        return nil
    }

    /// The constant, for constant expressions.
    public var constantValue: Any? {
        if case .constant(let value) = node { return value.anyValue }
        return nil
    }

    /// The function name, for function expressions.
    public var function: String? {
        if case .function(let name, _) = node { return name }
        return nil
    }

    /// The arguments, for function expressions.
    public var arguments: [ObjectExpression]? {
        if case .function(_, let args) = node { return args.map { ObjectExpression(node: $0) } }
        return nil
    }

    /// Evaluates the expression against an object or dictionary.
    public func expressionValue(with object: Any?) throws -> Any? {
        var evaluator = DynamicEvaluator(variables: [:])
        return try evaluator.value(of: node, on: object).anyValue
    }

    /// The canonical format text.
    public var description: String { PredicateFormatter.format(node) }

    /// Whether two expressions have the same parsed form. Callable from any queue.
    public static func == (lhs: ObjectExpression, rhs: ObjectExpression) -> Bool { lhs.node == rhs.node }
    /// Hashes the parsed form, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(node) }
}
