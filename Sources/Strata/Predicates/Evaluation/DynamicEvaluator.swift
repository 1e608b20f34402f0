import Foundation

/// Evaluates an unbound predicate against any value: managed objects (through key-value
/// coding), `[String: Any]` dictionaries, or plain values as `SELF`. Used by
/// ``ObjectPredicate/evaluate(with:)`` when no entity is known; fetches use the bound form.
struct DynamicEvaluator {
    var variables: [String: Any]

    func mismatch(_ message: String) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: message)
    }

    // MARK: Predicates

    mutating func evaluate(_ node: PredicateNode, on object: Any?) throws -> Bool {
        switch node {
        case .constant(let value): return value
        case .and(let terms):
            for term in terms where try !evaluate(term, on: object) { return false }
            return true
        case .or(let terms):
            for term in terms where try evaluate(term, on: object) { return true }
            return false
        case .not(let inner): return try !evaluate(inner, on: object)
        case .comparison(let comparison): return try evaluate(comparison, on: object)
        }
    }

    private mutating func evaluate(_ comparison: ComparisonNode, on object: Any?) throws -> Bool {
        let lhs = try value(of: comparison.lhs, on: object)
        let rhs = try value(of: comparison.rhs, on: object)
        switch comparison.modifier {
        case .direct:
            if case .array(let items) = lhs, comparison.op == .contains {
                return try items.contains { try Self.compareConstants($0, .equal, comparison.options, rhs) }
            }
            return try Self.compareConstants(lhs, comparison.op, comparison.options, rhs)
        case .any, .all, .none:
            guard case .array(let items) = lhs else {
                if case .null = lhs { return comparison.modifier == .all || comparison.modifier == .none }
                throw mismatch("'\(PredicateFormatter.format(comparison))': ANY, ALL and NONE need a collection on the left")
            }
            let results = try items.map { try Self.compareConstants($0, comparison.op, comparison.options, rhs) }
            switch comparison.modifier {
            case .any: return results.contains(true)
            case .all: return !results.contains(false)
            default: return !results.contains(true)
            }
        }
    }

    // MARK: Expressions

    mutating func value(of node: ExpressionNode, on object: Any?) throws -> PredicateValue {
        switch node {
        case .constant(let value): return value
        case .evaluatedObject: return try convert(object)
        case .variable(let name):
            guard let value = variables[name] else { throw mismatch("No value was given for substitution variable $\(name)") }
            return try convert(value)
        case .keyPath(let components):
            return try keyPathValue(components[...], on: object)
        case .keyPathFrom(let base, let components):
            switch base {
            case .variable(let name):
                guard let value = variables[name] else { throw mismatch("No value was given for substitution variable $\(name)") }
                return try keyPathValue(components[...], on: value)
            case .evaluatedObject:
                return try keyPathValue(components[...], on: object)
            default:
                let baseValue = try value(of: base, on: object)
                return try applyCollectionOperators(components[...], to: baseValue)
            }
        case .aggregate(let items):
            return .array(try items.map { try value(of: $0, on: object) })
        case .subquery(let collectionNode, let variable, let predicate):
            let collection = try rawValue(of: collectionNode, on: object)
            let elements = Self.elements(of: collection)
            var kept: [PredicateValue] = []
            let saved = variables[variable]
            defer { variables[variable] = saved }
            for element in elements {
                variables[variable] = element
                // Elements that are no predicate value (dictionaries) still count.
                if try evaluate(predicate, on: object) { kept.append(PredicateValue(any: element) ?? .null) }
            }
            return .array(kept)
        case .function(let name, let args):
            let values = try args.map { try value(of: $0, on: object) }
            return try Self.applyFunction(name, values)
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try evaluate(condition, on: object) ? value(of: whenTrue, on: object) : value(of: whenFalse, on: object)
        }
    }

    /// The raw Swift value of an expression (needed to iterate objects for SUBQUERY).
    private mutating func rawValue(of node: ExpressionNode, on object: Any?) throws -> Any? {
        switch node {
        case .keyPath(let components): return KeyPathWalker.value(of: object, components: components[...])
        case .keyPathFrom(.variable(let name), let components): return KeyPathWalker.value(of: variables[name], components: components[...])
        case .evaluatedObject: return object
        case .variable(let name): return variables[name]
        default: return try value(of: node, on: object).anyValue
        }
    }

    static func elements(of value: Any?) -> [Any] {
        switch value {
        case let collection as any KeyValueReadableCollection where !collection.isOrderedKeyValueCollection: return collection.keyValueObjects
        case let array as [Any]: return array
        case let set as Set<AnyHashable>: return Array(set)
        case let value?: return [value]
        default: return []
        }
    }

    private mutating func keyPathValue(_ components: ArraySlice<String>, on object: Any?) throws -> PredicateValue {
        // Walk plain keys to the collection, then apply the collection operator to the values the
        // rest of the path gives for each member (`tags.@sum.weight` sums each tag's weight).
        if let operatorIndex = components.firstIndex(where: { $0.hasPrefix("@") }) {
            let base = KeyPathWalker.value(of: object, components: components[..<operatorIndex])
            let rest = components[components.index(after: operatorIndex)...]
            // `@count` counts members, whatever they are (dictionaries have no predicate value).
            if components[operatorIndex] == "@count" { return .integer(Int64(Self.members(of: base).count)) }
            if rest.isEmpty { return try applyCollectionOperator(components[operatorIndex], to: try convert(base)) }
            // Each member is read on its own: a set of values would merge equal ones (two tags
            // of weight 5 add up to 10).
            let values = try Self.members(of: base).map { try convert(KeyPathWalker.value(of: $0, components: rest)) }
            return try applyCollectionOperator(components[operatorIndex], to: .array(values))
        }
        return try convert(KeyPathWalker.value(of: object, components: components))
    }

    /// The members of a collection a collection operator applies to (objects, dictionaries or
    /// values); a single value is a collection of one, nil an empty one.
    private static func members(of value: Any?) -> [Any] {
        switch value {
        case let collection as any KeyValueReadableCollection: return collection.keyValueObjects
        case .none: return []
        default: return elements(of: value)
        }
    }

    /// `@count`, `@sum`, `@avg`, `@min` or `@max` of `value`'s items (nil ones are skipped, except
    /// by `@count`, which counts members).
    private func applyCollectionOperators(_ components: ArraySlice<String>, to value: PredicateValue) throws -> PredicateValue {
        guard let op = components.first else { return value }
        return try applyCollectionOperator(op, to: value)
    }

    private func applyCollectionOperator(_ op: String, to value: PredicateValue) throws -> PredicateValue {
        let items: [PredicateValue]
        if case .array(let array) = value { items = array } else if case .null = value { items = [] } else { items = [value] }
        switch op {
        case "@count": return .integer(Int64(items.count))
        case "@sum", "@avg", "@min", "@max":
            let name = ["@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"][op] ?? "sum:"
            return try Self.aggregateConstants(name, items)
        default:
            throw mismatch("Unknown collection operator \(op)")
        }
    }

    private func convert(_ value: Any?) throws -> PredicateValue {
        guard let converted = PredicateValue(any: value) else {
            throw mismatch("A value of type \(value.map { "\(type(of: $0))" } ?? "nil") cannot be compared in a predicate")
        }
        return converted
    }

    // MARK: Shared helpers (also used by the binder for constant folding)

    /// Compares two constants with NSPredicate's semantics (nil equals only nil; ordering with
    /// nil is false; numbers compare across types; strings byte-wise or folded).
    static func compareConstants(_ lhs: PredicateValue, _ op: ComparisonOperator, _ options: ComparisonOptions, _ rhs: PredicateValue) throws -> Bool {
        switch op {
        case .equal: return try order(lhs, rhs, options).map { $0 == 0 } ?? false
        case .notEqual: return !(try order(lhs, rhs, options).map { $0 == 0 } ?? false)
        case .lessThan: return try ordered(lhs, rhs, options).map { $0 < 0 } ?? false
        case .lessThanOrEqual: return try ordered(lhs, rhs, options).map { $0 <= 0 } ?? false
        case .greaterThan: return try ordered(lhs, rhs, options).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return try ordered(lhs, rhs, options).map { $0 >= 0 } ?? false
        case .in:
            switch rhs {
            case .array(let items): return try items.contains { try compareConstants(lhs, .equal, options, $0) }
            case .string(let text):
                guard case .string(let part) = lhs else { return false }
                return StringMatching.contains(text, part, options)
            case .null: return false
            default: return try compareConstants(lhs, .equal, options, rhs)
            }
        case .contains:
            switch lhs {
            case .array(let items): return try items.contains { try compareConstants($0, .equal, options, rhs) }
            case .string(let text):
                guard case .string(let part) = rhs else { return false }
                return StringMatching.contains(text, part, options)
            default: return false
            }
        case .between:
            guard case .array(let bounds) = rhs, bounds.count == 2 else { return false }
            return try compareConstants(lhs, .greaterThanOrEqual, options, bounds[0]) && compareConstants(lhs, .lessThanOrEqual, options, bounds[1])
        case .beginsWith, .endsWith, .like, .matches:
            guard case .string(let text) = lhs, case .string(let pattern) = rhs else { return false }
            switch op {
            case .beginsWith: return StringMatching.beginsWith(text, pattern, options)
            case .endsWith: return StringMatching.endsWith(text, pattern, options)
            case .like: return StringMatching.like(text, pattern, options)
            default: return try StringMatching.matches(text, pattern, options)
            }
        }
    }

    /// Ordering for `<`, `>`: nil on either side or a NaN gives no order.
    private static func ordered(_ lhs: PredicateValue, _ rhs: PredicateValue, _ options: ComparisonOptions) throws -> Int? {
        if case .null = lhs { return nil }
        if case .null = rhs { return nil }
        if case .double(let v) = lhs, v.isNaN { return nil }
        if case .double(let v) = rhs, v.isNaN { return nil }
        guard let result = try order(lhs, rhs, options) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot order \(PredicateFormatter.literal(lhs)) and \(PredicateFormatter.literal(rhs)): they are of different kinds")
        }
        return result
    }

    /// Three-way comparison of comparable constants; `nil` when they are of different kinds
    /// (then only `!=` holds). nil equals nil.
    static func order(_ lhs: PredicateValue, _ rhs: PredicateValue, _ options: ComparisonOptions) throws -> Int? {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.null, _), (_, .null): return nil
        case (.string(let a), .string(let b)): return StringMatching.compare(a, b, options)
        case (.date(let a), .date(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.data(let a), .data(let b)): return ValueOrdering.compareBytes(a, b)
        case (.uuid(let a), .uuid(let b)): return ValueOrdering.compareBytes(AttributeCodec.uuidData(a), AttributeCodec.uuidData(b))
        case (.url(let a), .url(let b)): return StringMatching.compareBinary(a.absoluteString, b.absoluteString)
        case (.url(let a), .string(let b)): return StringMatching.compareBinary(a.absoluteString, b)
        case (.string(let a), .url(let b)): return StringMatching.compareBinary(a, b.absoluteString)
        case (.objectID(let a), .objectID(let b)): return a == b ? 0 : nil
        case (.objectID, .objectURI), (.objectURI, .objectID), (.objectURI, .objectURI): return lhs == rhs ? 0 : nil
        case (.array(let a), .array(let b)): return a == b ? 0 : nil
        default:
            guard let a = number(lhs), let b = number(rhs) else { return nil }
            return compareNumbers(a, b)
        }
    }

    enum Number {
        case integer(Int64)
        case double(Double)
        case decimal(Decimal)
    }

    static func number(_ value: PredicateValue) -> Number? {
        switch value {
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .decimal(let v): return .decimal(v)
        case .bool(let v): return .integer(v ? 1 : 0)
        default: return nil
        }
    }

    static func compareNumbers(_ a: Number, _ b: Number) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .integer(let y)): return ValueOrdering.compareRealToInteger(x, y)
        case (.integer(let x), .double(let y)): return -ValueOrdering.compareRealToInteger(y, x)
        default:
            let x = decimal(a)
            let y = decimal(b)
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    static func decimal(_ number: Number) -> Decimal {
        switch number {
        case .integer(let v): return Decimal(v)
        case .double(let v): return AttributeCodec.decimalValue(v) ?? 0
        case .decimal(let v): return v
        }
    }

    /// `sum:`, `count:`, `average:`, `min:`, `max:` of constants (nil elements skipped).
    static func aggregateConstants(_ name: String, _ items: [PredicateValue]) throws -> PredicateValue {
        let present = items.filter { if case .null = $0 { return false } else { return true } }
        switch name {
        case "count:": return .integer(Int64(items.count))
        case "sum:", "average:":
            var integerSum: Int64 = 0
            var doubleSum = 0.0
            var decimalSum = Decimal(0)
            var kind = 0  // 0 integer, 1 double, 2 decimal
            for item in present {
                guard let number = number(item) else {
                    throw StrataError(code: StrataError.Code.coreData, message: "\(name) needs numbers, got \(PredicateFormatter.literal(item))")
                }
                switch number {
                case .integer(let v):
                    let (sum, overflow) = integerSum.addingReportingOverflow(v)
                    if overflow { kind = max(kind, 1) } else { integerSum = sum }
                    doubleSum += Double(v)
                    decimalSum += Decimal(v)
                case .double(let v):
                    kind = max(kind, 1)
                    doubleSum += v
                case .decimal(let v):
                    kind = 2
                    decimalSum += v
                }
            }
            if name == "average:" {
                guard !present.isEmpty else { return .null }
                if kind == 2 { return .decimal(DecimalArithmetic.divide(decimalSum, by: present.count)) }
                return .double((kind == 0 ? Double(integerSum) : doubleSum) / Double(present.count))
            }
            switch kind {
            case 0: return .integer(integerSum)
            case 1: return .double(doubleSum)
            default: return .decimal(decimalSum)
            }
        case "min:", "max:":
            var best: PredicateValue?
            for item in present {
                guard let current = best else {
                    best = item
                    continue
                }
                guard let order = try order(item, current, []) else {
                    throw StrataError(code: StrataError.Code.coreData, message: "\(name) needs values of one kind")
                }
                if (name == "min:" && order < 0) || (name == "max:" && order > 0) { best = item }
            }
            return best ?? .null
        default:
            throw StrataError(code: StrataError.Code.coreData, message: "Unknown aggregate function \(name)")
        }
    }

    /// Applies a built-in function to constant arguments.
    static func applyFunction(_ name: String, _ args: [PredicateValue]) throws -> PredicateValue {
        func fail() -> StrataError {
            StrataError(code: StrataError.Code.coreData, message: "Function \(name) cannot be applied to (\(args.map(PredicateFormatter.literal).joined(separator: ", ")))")
        }
        switch name {
        case "sum:", "count:", "average:", "min:", "max:":
            if args.count == 1, case .array(let items) = args[0] { return try aggregateConstants(name, items) }
            return try aggregateConstants(name, args)
        case "now": return .date(Date())
        case "random": return .double(Double.random(in: 0..<1))
        case "lowercase:", "uppercase:", "length:":
            guard args.count == 1 else { throw fail() }
            if case .null = args[0] { return .null }
            guard case .string(let text) = args[0] else { throw fail() }
            if name == "length:" { return .integer(Int64(text.unicodeScalars.count)) }
            return .string(name == "lowercase:" ? text.lowercased() : text.uppercased())
        case "objectFrom:withIndex:":
            guard args.count == 2, case .array(let items) = args[0] else { throw fail() }
            switch args[1] {
            case .string("FIRST"): return items.first ?? .null
            case .string("LAST"): return items.last ?? .null
            case .string("SIZE"): return .integer(Int64(items.count))
            case .integer(let index): return index >= 0 && index < items.count ? items[Int(index)] : .null
            default: throw fail()
            }
        case "castObject:toType:":
            guard args.count == 2, case .string(let type) = args[1], let converted = CastConversion.convert(args[0], to: type) else { throw fail() }
            return converted
        case "noindex:":
            return args.first ?? .null
        default:
            break
        }
        // Numeric functions: nil in, nil out.
        if args.contains(where: { if case .null = $0 { return true } else { return false } }) { return .null }
        let numbers = try args.map { value -> Number in
            guard let n = number(value) else { throw fail() }
            return n
        }
        return try NumericFunctions.apply(name, numbers) ?? { throw fail() }()
    }
}
