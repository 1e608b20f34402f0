import Foundation

/// Parsed trees of recently used format strings, kept as templates (Core Data's predicate
/// templates: `predicateWithSubstitutionVariables`), so that `ObjectPredicate(format:)` with a
/// format string it has met — the same string with new values, as an app's lookups by key
/// are — substitutes the new values into the tree instead of parsing the string again.
///
/// A template is keyed by the format string, the class of each value argument (integer, real
/// or string: the classes with markers) and the `%K` arguments verbatim. It is made the first
/// time a key is met by parsing the string twice: with the arguments, and with a marker of the
/// same class in place of each value argument (`marker(_:index:)`). It is kept only if each
/// marker appears exactly once in the marked tree and putting the arguments in place of the
/// markers gives the tree parsed with the arguments; else the key is remembered as one to parse
/// every time (so is any argument of another class: nil, a Bool, a date, a collection, an
/// object, an `ObjectExpression`). A format string with a syntax error or longer than
/// `PredicateLexer.longestMemoizedFormat` is always parsed (and throws as before).
///
/// Thread-safe and bounded (`BoundedMemo`).
enum PredicateTemplates {
    struct Key: Hashable, Sendable {
        let format: String
        /// Per argument: 1 integer, 2 real, 3 string, 4 a `%K` key (in `keys`).
        let classes: [UInt8]
        let keys: [String]
    }

    /// The most keys remembered.
    static let capacity = 256
    private static let memo = BoundedMemo<Key, PredicateNode?>(capacity: capacity)

    /// The number of keys remembered now.
    static var count: Int { memo.count }

    /// The tree of `format` with `arguments`: from its template when it has one, else parsed.
    static func parse(format: String, arguments: [Any]) throws -> PredicateNode {
        guard let (key, values) = key(format: format, arguments: arguments) else { return try parsed(format, arguments) }
        var parsedNow: PredicateNode?
        let template = try memo.value(for: key) { () throws -> PredicateNode? in
            let node = try parsed(format, arguments)
            parsedNow = node
            return makeTemplate(format: format, key: key, arguments: arguments, values: values, expected: node)
        }
        if let parsedNow { return parsedNow }
        if let template, let node = substitute(values, into: template) { return node }
        return try parsed(format, arguments)
    }

    private static func parsed(_ format: String, _ arguments: [Any]) throws -> PredicateNode {
        var parser = try PredicateParser(format: format, arguments: arguments)
        return try parser.parsePredicate()
    }

    /// The template key of a call and its argument values (`nil` at a `%K`), or `nil` when the
    /// call takes no template.
    static func key(format: String, arguments: [Any]) -> (Key, [PredicateValue?])? {
        guard !arguments.isEmpty, format.utf8.count <= PredicateLexer.longestMemoizedFormat,
            let tokens = try? PredicateLexer.tokens(of: format)
        else { return nil }
        var classes: [UInt8] = []
        var keys: [String] = []
        var values: [PredicateValue?] = []
        classes.reserveCapacity(arguments.count)
        values.reserveCapacity(arguments.count)
        for token in tokens {
            guard case .formatSpecifier(let spec) = token.kind else { continue }
            guard values.count < arguments.count, let letter = spec.last else { return nil }
            let argument = arguments[values.count]
            if letter == "K" {
                guard let key = argument as? String else { return nil }
                classes.append(4)
                keys.append(key)
                values.append(nil)
                continue
            }
            guard PredicateParser.specifierTakesValue(letter), case .constant(let value)? = try? PredicateParser.argumentNode(spec, argument, offset: 0) else { return nil }
            switch value {
            case .integer: classes.append(1)
            case .double: classes.append(2)
            case .string: classes.append(3)
            default: return nil
            }
            values.append(value)
        }
        guard values.count == arguments.count else { return nil }
        return (Key(format: format, classes: classes, keys: keys), values)
    }

    /// A value of `value`'s class that no format string holds, distinct for each `index`.
    static func marker(_ value: PredicateValue, index: Int) -> PredicateValue? {
        switch value {
        case .integer: return .integer(Int64.min / 2 + Int64(index))
        case .double: return .double(Double(bitPattern: 0xFFE0_5157_0000_0000 | UInt64(index)))
        case .string: return .string(stringMarkerPrefix + String(index))
        default: return nil
        }
    }

    /// The start of every string marker; its index follows in decimal.
    static let stringMarkerPrefix = "\u{1}strata.argument."

    /// The marked tree of `format`, or `nil` when it does not give back `expected`.
    private static func makeTemplate(format: String, key: Key, arguments: [Any], values: [PredicateValue?], expected: PredicateNode) -> PredicateNode? {
        var marked: [Any] = arguments
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            switch marker(value, index: index) {
            case .integer(let v)?: marked[index] = v
            case .double(let v)?: marked[index] = v
            case .string(let v)?: marked[index] = v
            default: return nil
            }
        }
        guard let template = try? parsed(format, marked), let rebuilt = substitute(values, into: template), rebuilt == expected else { return nil }
        return template
    }

    // MARK: Substitution

    /// `template` with each marker replaced by its value; `nil` unless every marker of `values`
    /// appears exactly once (and there are at most ``Substitution/maximumValues`` values).
    static func substitute(_ values: [PredicateValue?], into template: PredicateNode) -> PredicateNode? {
        guard values.count <= Substitution.maximumValues else { return nil }
        var substitution = Substitution(values: values)
        let node = substitution.predicate(template)
        for (index, value) in values.enumerated() {
            let bit: UInt64 = 1 << UInt64(index)
            let seenOnce = substitution.seen & bit != 0 && substitution.seenAgain & bit == 0
            if seenOnce != (value != nil) { return nil }
        }
        return node
    }

    private struct Substitution {
        /// The most values a substitution takes (one bit each in `seen`).
        static let maximumValues = 64

        let values: [PredicateValue?]
        /// By value index: bits of the markers met, and of those met more than once.
        var seen: UInt64 = 0
        var seenAgain: UInt64 = 0

        init(values: [PredicateValue?]) {
            self.values = values
        }

        mutating func predicate(_ node: PredicateNode) -> PredicateNode {
            switch node {
            case .constant: return node
            case .and(let terms): return .and(terms.map { predicate($0) })
            case .or(let terms): return .or(terms.map { predicate($0) })
            case .not(let inner): return .not(predicate(inner))
            case .comparison(var comparison):
                comparison.lhs = expression(comparison.lhs)
                comparison.rhs = expression(comparison.rhs)
                return .comparison(comparison)
            }
        }

        mutating func expression(_ node: ExpressionNode) -> ExpressionNode {
            switch node {
            case .constant(let value): return .constant(self.value(value))
            case .evaluatedObject, .variable, .keyPath: return node
            case .keyPathFrom(let base, let path): return .keyPathFrom(expression(base), path)
            case .function(let name, let args): return .function(name, args.map { expression($0) })
            case .aggregate(let items): return .aggregate(items.map { expression($0) })
            case .subquery(let collection, let variable, let body): return .subquery(expression(collection), variable, predicate(body))
            case .conditional(let condition, let whenTrue, let whenFalse):
                return .conditional(predicate(condition), expression(whenTrue), expression(whenFalse))
            }
        }

        mutating func value(_ value: PredicateValue) -> PredicateValue {
            switch value {
            case .integer, .double, .string:
                guard let index = markerIndex(value), let replacement = values[index] else { return value }
                let bit: UInt64 = 1 << UInt64(index)
                if seen & bit != 0 { seenAgain |= bit }
                seen |= bit
                return replacement
            case .array(let items): return .array(items.map { self.value($0) })
            default: return value
            }
        }

        /// The index whose marker `value` is (`marker(_:index:)` of a value of the same class at
        /// that index), or nil. Decodes the marker instead of comparing with each one: no list
        /// of markers is built for a substitution.
        private func markerIndex(_ value: PredicateValue) -> Int? {
            let index: Int
            switch value {
            case .integer(let number):
                let offset = number &- Int64.min / 2
                guard offset >= 0, offset < Int64(values.count) else { return nil }
                index = Int(offset)
            case .double(let real):
                // Exact bits (a marker is a finite negative real near -Double.greatestFiniteMagnitude).
                let bits = real.bitPattern
                guard bits & 0xFFFF_FFFF_0000_0000 == 0xFFE0_5157_0000_0000, bits & 0xFFFF_FFFF < UInt64(values.count) else { return nil }
                index = Int(bits & 0xFFFF_FFFF)
            case .string(let text):
                guard text.hasPrefix(PredicateTemplates.stringMarkerPrefix) else { return nil }
                let digits = text.dropFirst(PredicateTemplates.stringMarkerPrefix.count)
                guard let number = Int(digits), number >= 0, number < values.count, String(number) == digits else { return nil }
                index = number
            default:
                return nil
            }
            // A marker stands for a value of its own class only.
            guard let expected = values[index], Self.sameClass(expected, value) else { return nil }
            return index
        }

        private static func sameClass(_ a: PredicateValue, _ b: PredicateValue) -> Bool {
            switch (a, b) {
            case (.integer, .integer), (.double, .double), (.string, .string): return true
            default: return false
            }
        }
    }
}
