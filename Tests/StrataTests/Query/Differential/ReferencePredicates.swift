import Foundation
import Strata
import StrataTestSupport

/// A value as the reference evaluator computes it, in plain Swift.
enum ReferenceValue: CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)

    var description: String {
        switch self {
        case .null: return "nil"
        case .integer(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .decimal(let v): return "\(v)"
        case .string(let v): return String(reflecting: v)
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A predicate with its meaning written out in plain Swift: `format` and `arguments` are what a
/// user passes to `ObjectPredicate(format:)`, `test` says whether an item of the fixture's
/// plain data matches, computed directly from ``DifferentialFixture/Data`` without Strata.
struct ReferencePredicate: CustomStringConvertible {
    var format: String
    var arguments: [Any]
    var test: (DifferentialFixture.Data, DifferentialFixture.Item) -> Bool

    var description: String {
        arguments.isEmpty ? format : format + "  with arguments " + arguments.map { "\(type(of: $0))(\($0))" }.joined(separator: ", ")
    }
}

/// The semantics the reference follows, as docs/predicates.md states them: two-valued logic; nil
/// equals only nil and is never ordered; numbers compare by exact value across integer, double
/// and decimal; NaN is never ordered and equals only NaN; strings compare byte-wise on UTF-8.
/// Aggregates over a to-many: `@count` counts the members; nil values are skipped; `@sum` of
/// nothing is 0, an integer sum beyond `Int64` is a double; `@avg`, `@min`, `@max` of nothing
/// are nil.
enum Reference {
    typealias Data = DifferentialFixture.Data
    typealias Item = DifferentialFixture.Item

    // MARK: Comparison

    /// Three-way comparison; nil when the two are not ordered (NaN, nil, different kinds).
    static func order(_ a: ReferenceValue, _ b: ReferenceValue) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return compare(y, x).map { -$0 }
        case (.decimal(let x), .decimal(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.decimal(let x), .integer(let y)): return order(.decimal(x), .decimal(Decimal(y)))
        case (.integer(let x), .decimal(let y)): return order(.decimal(Decimal(x)), .decimal(y))
        case (.string(let x), .string(let y)):
            // Byte-wise on UTF-8 (Swift's `<` on strings compares canonically, which is not it).
            let (p, q) = (Array(x.utf8), Array(y.utf8))
            return p == q ? 0 : (p.lexicographicallyPrecedes(q) ? -1 : 1)
        default: return nil
        }
    }

    /// An integer against a double, exactly (no rounding of the integer to a double).
    static func compare(_ integer: Int64, _ double: Double) -> Int? {
        if double.isNaN { return nil }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = double.rounded(.towardZero)
        let wholeInteger = Int64(whole)
        if integer != wholeInteger { return integer < wholeInteger ? -1 : 1 }
        let fraction = double - whole
        return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
    }

    static func equal(_ a: ReferenceValue, _ b: ReferenceValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.double(let x), .double(let y)) where x.isNaN || y.isNaN: return x.isNaN && y.isNaN
        default: return order(a, b) == 0
        }
    }

    /// `a op b` for `==`, `!=`, `<`, `<=`, `>`, `>=`.
    static func holds(_ a: ReferenceValue, _ op: String, _ b: ReferenceValue) -> Bool {
        switch op {
        case "==": return equal(a, b)
        case "!=": return !equal(a, b)
        default:
            guard let order = order(a, b) else { return false }
            switch op {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        }
    }

    // MARK: Aggregates

    static func members(_ relationship: String, of item: Item, in data: Data) -> [DifferentialFixture.Tag] {
        (relationship == "tags" ? item.tags : Array(item.links)).map { data.tags[$0] }
    }

    static func sum(_ values: [Int64]) -> ReferenceValue {
        let total = values.reduce(Int128(0)) { $0 + Int128($1) }
        if let exact = Int64(exactly: total) { return .integer(exact) }
        return .double(Double(total))
    }

    static func average(_ values: [Int64]) -> ReferenceValue {
        guard !values.isEmpty else { return .null }
        let total = values.reduce(Int128(0)) { $0 + Int128($1) }
        return .double(Double(total) / Double(values.count))
    }

    static func sum(_ values: [Double]) -> ReferenceValue {
        values.isEmpty ? .integer(0) : .double(values.reduce(0, +))
    }

    static func average(_ values: [Double]) -> ReferenceValue {
        values.isEmpty ? .null : .double(values.reduce(0, +) / Double(values.count))
    }

    static func extreme(_ values: [ReferenceValue], maximum: Bool) -> ReferenceValue {
        var best: ReferenceValue = .null
        for value in values where !value.isNull {
            if best.isNull {
                best = value
            } else if let order = order(value, best), maximum ? order > 0 : order < 0 {
                best = value
            }
        }
        return best
    }

    /// The value of an aggregate `op` (`@count`, `@sum`, …) over `relationship`'s members' `key`.
    static func aggregate(_ op: String, _ relationship: String, _ key: String, item: Item, data: Data) -> ReferenceValue {
        let tags = members(relationship, of: item, in: data)
        if op == "@count" { return .integer(Int64(tags.count)) }
        switch key {
        case "weight":
            let values = tags.compactMap(\.weight)
            switch op {
            case "@sum": return sum(values)
            case "@avg": return average(values)
            default: return extreme(values.map { .integer($0) }, maximum: op == "@max")
            }
        case "ratio":
            let values = tags.compactMap(\.ratio)
            switch op {
            case "@sum": return sum(values)
            case "@avg": return average(values)
            default: return extreme(values.map { .double($0) }, maximum: op == "@max")
            }
        case "amount":
            return extreme(tags.compactMap(\.amount).map { .decimal($0) }, maximum: op == "@max")
        default:
            return extreme(tags.compactMap(\.label).map { .string($0) }, maximum: op == "@max")
        }
    }
}

/// Generates predicates the reference can evaluate: comparisons of to-many aggregates (`@count`,
/// `@sum`, `@avg`, `@min`, `@max` over `tags` and `links`, in key-path and function spelling),
/// SUBQUERY counts, ANY/ALL/NONE, attributes and to-one key paths with constants (nil, Int64
/// limits, ±infinity, NaN, -0.0, decimals, strings), BETWEEN, mirrored comparisons and
/// AND/OR/NOT.
struct ReferencePredicateGenerator {
    typealias Data = DifferentialFixture.Data
    typealias Item = DifferentialFixture.Item
    typealias Value = (Data, Item) -> ReferenceValue

    var random: QueryRandom

    init(seed: UInt64) {
        random = QueryRandom(seed: seed)
    }

    enum Kind {
        case integer, double, decimal, string
    }

    mutating func next() -> ReferencePredicate {
        predicate(depth: 0)
    }

    private mutating func predicate(depth: Int) -> ReferencePredicate {
        let roll = random.int(0...99)
        if depth < 2 && roll < (depth == 0 ? 35 : 15) {
            let parts = (0..<random.int(2...3)).map { _ in predicate(depth: depth + 1) }
            let isAnd = random.chance(0.5)
            let tests = parts.map(\.test)
            return ReferencePredicate(
                format: parts.map { "(" + $0.format + ")" }.joined(separator: isAnd ? " AND " : " OR "),
                arguments: parts.flatMap(\.arguments),
                test: isAnd ? { data, item in tests.allSatisfy { $0(data, item) } } : { data, item in tests.contains { $0(data, item) } })
        }
        if depth < 2 && roll < (depth == 0 ? 45 : 22) {
            let inner = predicate(depth: depth + 1)
            let test = inner.test
            return ReferencePredicate(format: "NOT (" + inner.format + ")", arguments: inner.arguments) { !test($0, $1) }
        }
        if roll >= 92 { return quantified() }
        return comparison()
    }

    // MARK: Operands

    /// An operand yielding one value per item, its kind and its reference value.
    private mutating func operand() -> (text: String, kind: Kind, value: Value) {
        let relationship = random.pick(["tags", "tags", "links"])
        switch random.int(0...99) {
        case 0..<12:
            return ("\(relationship).@count", .integer, { data, item in Reference.aggregate("@count", relationship, "", item: item, data: data) })
        case 12..<15:
            return ("count:(\(relationship))", .integer, { data, item in Reference.aggregate("@count", relationship, "", item: item, data: data) })
        case 15..<45:
            let op = random.pick(["@sum", "@avg", "@min", "@max"])
            let key = random.pick(["weight", "ratio"])
            let kind: Kind = key == "ratio" || op == "@avg" ? .double : .integer
            let text: String
            if random.chance(0.2) {
                let function = ["@sum": "sum:", "@avg": "average:", "@min": "min:", "@max": "max:"][op] ?? "sum:"
                text = "\(function)(\(relationship).\(key))"
            } else {
                text = "\(relationship).\(op).\(key)"
            }
            return (text, kind, { data, item in Reference.aggregate(op, relationship, key, item: item, data: data) })
        case 45..<52:
            let op = random.pick(["@min", "@max"])
            return ("\(relationship).\(op).amount", .decimal, { data, item in Reference.aggregate(op, relationship, "amount", item: item, data: data) })
        case 52..<60:
            let op = random.pick(["@min", "@max"])
            return ("\(relationship).\(op).label", .string, { data, item in Reference.aggregate(op, relationship, "label", item: item, data: data) })
        case 60..<66:
            let bound = Int64(random.int(-4...12))
            return (
                "SUBQUERY(\(relationship), $t, $t.weight > \(bound)).@count", .integer,
                { data, item in .integer(Int64(Reference.members(relationship, of: item, in: data).filter { $0.weight.map { $0 > bound } ?? false }.count)) }
            )
        case 66..<72: return ("i64", .integer, { _, item in item.i64.map { .integer($0) } ?? .null })
        case 72..<76: return ("i32", .integer, { _, item in item.i32.map { .integer(Int64($0)) } ?? .null })
        case 76..<82: return ("dbl", .double, { _, item in item.dbl.map { .double($0) } ?? .null })
        case 82..<86: return ("dec", .decimal, { _, item in item.dec.map { .decimal($0) } ?? .null })
        case 86..<90: return ("str", .string, { _, item in item.str.map { .string($0) } ?? .null })
        case 90..<95:
            return ("group.rank", .integer, { data, item in item.group.flatMap { data.groups[$0].rank }.map { .integer($0) } ?? .null })
        default:
            return ("group.score", .double, { data, item in item.group.flatMap { data.groups[$0].score }.map { .double($0) } ?? .null })
        }
    }

    /// A constant for an operand of `kind`: its text in the format (inline or a `%` marker) and
    /// its argument.
    private mutating func constant(_ kind: Kind) -> (text: String, arguments: [Any], value: ReferenceValue) {
        var kind = kind
        if kind == .double && random.chance(0.3) { kind = .integer }
        if kind == .decimal && random.chance(0.5) { kind = .integer }
        switch kind {
        case .integer:
            let value = random.chance(0.4) ? random.pick(DifferentialFixture.int64s) : Int64(random.int(-6...16))
            switch random.int(0...3) {
            case 0: return ("%@", [value], .integer(value))
            case 1: return ("%lld", [Int(value)], .integer(value))
            default: return (value == Int64.min ? "(-9223372036854775807 - 1)" : String(value), [], .integer(value))
            }
        case .double:
            let value = random.pick([
                0.0, -0.0, 0.5, 1.5, 2.5, 3.0, 3.25, 5.5, -2.0, -0.5, 1e300, 2e300, 3e300, .infinity, -.infinity, .nan, 9.223372036854775807e18, 1e-300, 100.5,
            ])
            return ("%@", [value], .double(value))
        case .decimal:
            let value = random.pick(DifferentialFixture.decimals)
            return ("%@", [value], .decimal(value))
        case .string:
            let value = random.pick(DifferentialFixture.labels + ["a", "c", "s", "z", "Z", "é", "\u{10FFFF}"])
            return ("%@", [value], .string(value))
        }
    }

    // MARK: Comparisons

    private mutating func comparison() -> ReferencePredicate {
        let (text, kind, value) = operand()
        if random.chance(0.12) {
            let isEqual = random.chance(0.5)
            let op = isEqual ? random.pick(["==", "="]) : random.pick(["!=", "<>"])
            let format = random.chance(0.2) ? "nil \(op) \(text)" : "\(text) \(op) nil"
            return ReferencePredicate(format: format, arguments: []) { data, item in value(data, item).isNull == isEqual }
        }
        if random.chance(0.1) {
            var (low, high) = (constant(kind), constant(kind))
            if random.chance(0.7), let order = Reference.order(low.value, high.value), order > 0 { swap(&low, &high) }
            let (lowValue, highValue) = (low.value, high.value)
            return ReferencePredicate(format: "\(text) BETWEEN {\(low.text), \(high.text)}", arguments: low.arguments + high.arguments) { data, item in
                let v = value(data, item)
                return Reference.holds(v, ">=", lowValue) && Reference.holds(v, "<=", highValue)
            }
        }
        let op = random.pick(["==", "!=", "<", "<=", ">", ">="])
        let c = constant(kind)
        let constantValue = c.value
        if random.chance(0.15) {
            // Mirrored: `constant op key` is `key mirrored(op) constant`.
            let mirrored = ["<": ">", "<=": ">=", ">": "<", ">=": "<="][op] ?? op
            return ReferencePredicate(format: "\(c.text) \(op) \(text)", arguments: c.arguments) { data, item in Reference.holds(value(data, item), mirrored, constantValue) }
        }
        return ReferencePredicate(format: "\(text) \(op) \(c.text)", arguments: c.arguments) { data, item in Reference.holds(value(data, item), op, constantValue) }
    }

    /// `ANY/ALL/NONE relationship.weight op constant` (ALL and NONE are true for no members).
    private mutating func quantified() -> ReferencePredicate {
        let relationship = random.pick(["tags", "links"])
        let modifier = random.pick(["ANY", "ALL", "NONE"])
        let key = random.pick(["weight", "ratio"])
        let op = random.pick(["==", "!=", "<", "<=", ">", ">="])
        let c = constant(key == "weight" ? .integer : .double)
        let constantValue = c.value
        return ReferencePredicate(format: "\(modifier) \(relationship).\(key) \(op) \(c.text)", arguments: c.arguments) { data, item in
            let results = Reference.members(relationship, of: item, in: data).map { tag -> Bool in
                let value: ReferenceValue = key == "weight" ? (tag.weight.map { .integer($0) } ?? .null) : (tag.ratio.map { .double($0) } ?? .null)
                return Reference.holds(value, op, constantValue)
            }
            switch modifier {
            case "ANY": return results.contains(true)
            case "ALL": return !results.contains(false)
            default: return !results.contains(true)
            }
        }
    }
}
