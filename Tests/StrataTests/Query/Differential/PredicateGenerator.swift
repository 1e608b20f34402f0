import Foundation
import Strata
import StrataTestSupport

/// A random predicate as a user would write it: a format string and its arguments.
struct GeneratedPredicate: CustomStringConvertible {
    var format: String
    var arguments: [Any]

    var description: String {
        arguments.isEmpty ? format : format + "  with arguments " + arguments.map { "\(type(of: $0))(\($0))" }.joined(separator: ", ")
    }
}

/// Generates random predicates over ``DifferentialFixture``'s `Item` entity: every comparison
/// operator and spelling, `[c]`/`[d]`/`[cd]`, NULLs, nested AND/OR/NOT, to-one key paths,
/// ANY/SOME/ALL/NONE, `@count`/`@sum`/`@avg`/`@min`/`@max`, SUBQUERY, BETWEEN, IN lists and
/// sets, arithmetic and functions, constants on either side, `%@`/`%K`/`%d`/`%f` arguments and
/// the `$G` variable (a group object, substituted per engine).
struct PredicateGenerator {
    var random: QueryRandom

    init(seed: UInt64) {
        random = QueryRandom(seed: seed)
    }

    enum Kind: CaseIterable {
        case integer, double, decimal, string, boolean, date
    }

    /// Keys that yield one value per item, by kind: attributes and to-one key paths.
    static let plainKeys: [Kind: [String]] = [
        .integer: ["i16", "i32", "i64", "group.rank", "group.region.code"],
        .double: ["dbl", "flt", "group.score"],
        .decimal: ["dec"],
        .string: ["str", "alt", "group.name", "group.region.name"],
        .boolean: ["flag"],
        .date: ["day"],
    ]

    /// Keys that yield one value per item through a to-many: aggregates and subqueries.
    static let aggregateKeys: [Kind: [String]] = [
        .integer: [
            "tags.@count", "links.@count", "tags.@sum.weight", "tags.@min.weight", "tags.@max.weight", "group.items.@count",
            "SUBQUERY(tags, $t, $t.weight > 1).@count", "count:(links)",
            "SUBQUERY(links, $x, $x.label BEGINSWITH[c] 'r' OR $x.ratio < 0).@count",
        ],
        .double: ["tags.@avg.ratio", "tags.@sum.ratio", "tags.@max.ratio", "tags.@avg.weight", "links.@min.ratio"],
        .decimal: ["tags.@sum.amount", "tags.@avg.amount", "tags.@min.amount", "tags.@max.amount"],
        .string: ["tags.@max.label", "tags.@min.label"],
    ]

    /// A key yielding one value per item: mostly attributes and to-one paths (cheap to
    /// evaluate), a quarter of the time an aggregate over a to-many.
    private mutating func scalarKey(_ kind: Kind) -> String {
        if random.chance(0.25), let aggregates = Self.aggregateKeys[kind] { return random.pick(aggregates) }
        return random.pick(Self.plainKeys[kind] ?? ["i32"])
    }

    /// Keys through a to-many relationship (for ANY/ALL/NONE), by kind.
    static let collectionKeys: [Kind: [String]] = [
        .integer: ["tags.weight", "links.weight", "group.items.i32"],
        .double: ["tags.ratio", "links.ratio", "tags.item.dbl"],
        .decimal: ["tags.amount", "links.amount"],
        .string: ["tags.label", "links.label", "group.items.str", "tags.item.alt"],
    ]

    /// Keys that may be passed as `%K`.
    static let keyArguments: Set<String> = [
        "i16", "i32", "i64", "dbl", "flt", "dec", "str", "alt", "flag", "day", "group.rank",
        "group.region.code", "group.score", "group.name", "group.region.name", "tags.@count",
    ]

    /// Arguments by placeholder number: text is generated out of order (a mirrored comparison
    /// writes its value before its key), so `%` specifiers are placed as markers and the
    /// argument list is built in the order the markers appear.
    private var pending: [(spec: String, value: Any)] = []

    mutating func next() -> GeneratedPredicate {
        pending = []
        let marked = predicate(depth: 0)
        var format = ""
        var arguments: [Any] = []
        var scalars = marked.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1}" else {
                format.unicodeScalars.append(scalar)
                continue
            }
            var number = ""
            while let digit = scalars.next(), digit != "\u{1}" { number.unicodeScalars.append(digit) }
            let (spec, value) = pending[Int(number) ?? 0]
            format += spec
            arguments.append(value)
        }
        return GeneratedPredicate(format: format, arguments: arguments)
    }

    /// A marker for a `%` specifier whose argument is `value`.
    private mutating func argument(_ spec: String, _ value: Any) -> String {
        pending.append((spec, value))
        return "\u{1}\(pending.count - 1)\u{1}"
    }

    // MARK: Structure

    private mutating func predicate(depth: Int) -> String {
        let roll = random.int(0...99)
        // Compound predicates mostly at the top: deep trees cost much and add little.
        if depth < 3 && roll < (depth == 0 ? 35 : 12) {
            let count = random.int(2...3)
            let joiner = random.pick(random.chance(0.5) ? [" AND ", " and ", " && "] : [" OR ", " or ", " || "])
            return (0..<count).map { _ in grouped(predicate(depth: depth + 1)) }.joined(separator: joiner)
        }
        if depth < 4 && roll < (depth == 0 ? 42 : 17) {
            return random.pick(["NOT ", "not ", "!"]) + "(" + predicate(depth: depth + 1) + ")"
        }
        if roll == 99 { return random.pick(["TRUEPREDICATE", "FALSEPREDICATE"]) }
        return comparison()
    }

    private mutating func grouped(_ text: String) -> String { "(" + text + ")" }

    private mutating func comparison() -> String {
        switch random.int(0...99) {
        case 0..<12: return nilCheck()
        case 12..<20: return objectComparison()
        case 20..<34: return quantified()
        case 34..<42: return keyVersusKey()
        case 42..<50: return arithmetic()
        case 50..<53: return membershipInCollection()
        default:
            let kind = random.pick(Kind.allCases)
            return valueComparison(kind: kind, key: key(scalarKey(kind)))
        }
    }

    /// Writes a key, sometimes as `%K`.
    private mutating func key(_ path: String) -> String {
        if Self.keyArguments.contains(path) && random.chance(0.15) {
            return argument("%K", path)
        }
        return path
    }

    // MARK: Comparisons

    private mutating func nilCheck() -> String {
        let kind = random.pick(Kind.allCases)
        let path = key(scalarKey(kind))
        let nilWord = random.pick(["nil", "NIL", "NULL", "null"])
        let op = random.pick(["==", "!=", "=", "<>"])
        return random.chance(0.2) ? "\(nilWord) \(op) \(path)" : "\(path) \(op) \(nilWord)"
    }

    private mutating func objectComparison() -> String {
        switch random.int(0...5) {
        case 0: return "group == $G"
        case 1: return "group != $G"
        case 2: return "group.region == nil"
        case 3: return "group != nil"
        case 4: return "$G == group"
        default: return "ANY tags.item.group == $G"
        }
    }

    private mutating func quantified() -> String {
        let kind = random.pick([Kind.integer, .double, .decimal, .string])
        let path = random.pick(Self.collectionKeys[kind] ?? ["tags.label"])
        let modifier = random.pick(["ANY ", "SOME ", "ALL ", "NONE ", "any ", ""])
        if kind == .string && random.chance(0.2) {
            return modifier + path + " == nil"
        }
        return modifier + valueComparison(kind: kind, key: path)
    }

    private mutating func keyVersusKey() -> String {
        let pairs: [(String, String, Bool)] = [
            ("i16", "i32", false), ("i32", "i64", false), ("i64", "group.rank", false), ("dbl", "flt", false),
            ("dbl", "i64", false), ("flt", "group.score", false), ("str", "alt", true), ("str", "group.name", true),
            ("alt", "group.region.name", true), ("tags.@count", "links.@count", false), ("i16", "tags.@sum.weight", false),
            ("dec", "tags.@max.amount", false),
        ]
        let (a, b, isString) = random.pick(pairs)
        var ops = ["==", "!=", "<", "<=", ">", ">="]
        if isString { ops += ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"] }
        let op = random.pick(ops)
        let options = isString ? modifiers() : ""
        return random.chance(0.5) ? "\(a) \(op)\(options) \(b)" : "\(b) \(op)\(options) \(a)"
    }

    private mutating func arithmetic() -> String {
        let expressions = [
            "i32 + i16", "i64 - 1", "i16 * 3", "i32 / 2", "dbl * 2", "dbl + flt", "i64 + i64", "-i32", "i16 ** 2",
            "abs:(i32)", "abs:(dbl)", "floor:(dbl)", "ceiling:(flt)", "sqrt:(dbl)", "FUNCTION(i32, 'modulus:by:', 7)",
            "i64 * i64", "tags.@count + links.@count", "(i32 - i16) * 2", "group.rank + 1", "trunc:(dbl / 3)",
            "length:(str)", "TERNARY(flag == YES, i32, i16)",
        ]
        let expression = random.pick(expressions)
        let op = random.pick(["==", "!=", "<", "<=", ">", ">="])
        let constant = numberLiteral(kind: random.chance(0.7) ? .integer : .double)
        return random.chance(0.8) ? "\(expression) \(op) \(constant)" : "\(constant) \(op) \(expression)"
    }

    private mutating func membershipInCollection() -> String {
        switch random.int(0...3) {
        case 0: return stringLiteral(random.pick(DifferentialFixture.labels)) + " IN tags.label"
        case 1: return numberLiteral(kind: .integer) + " IN links.weight"
        case 2: return "tags.label CONTAINS " + stringLiteral(random.pick(DifferentialFixture.labels))
        default: return "NOT (" + stringLiteral(random.pick(DifferentialFixture.labels)) + " IN links.label)"
        }
    }

    /// `key op constant` (or the mirror), for any operator that suits `kind`.
    private mutating func valueComparison(kind: Kind, key path: String) -> String {
        switch kind {
        case .string: return stringComparison(path)
        case .boolean:
            let value = random.pick(["YES", "NO", "TRUE", "FALSE", "true", "no", "1", "0"])
            return "\(path) \(random.pick(["==", "!="])) \(value)"
        case .date:
            return orderedComparison(path) { generator in generator.dateLiteral() }
        case .integer, .double, .decimal:
            return orderedComparison(path) { generator in generator.numberLiteral(kind: generator.random.chance(0.8) ? kind : generator.random.pick([.integer, .double, .decimal])) }
        }
    }

    private mutating func orderedComparison(_ path: String, constant: (inout PredicateGenerator) -> String) -> String {
        switch random.int(0...9) {
        case 0:
            let low = constant(&self)
            let high = constant(&self)
            return "\(path) BETWEEN {\(low), \(high)}"
        case 1:
            if random.chance(0.5) {
                let items = (0..<random.int(0...4)).map { _ in constant(&self) }
                return "\(path) IN {\(items.joined(separator: ", "))}"
            }
            return "\(path) IN " + listArgument(count: random.int(0...4))
        default:
            let op = random.pick(["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"])
            let value = constant(&self)
            return random.chance(0.15) ? "\(value) \(op) \(path)" : "\(path) \(op) \(value)"
        }
    }

    private mutating func stringComparison(_ path: String) -> String {
        let op = random.pick(["==", "!=", "<", ">=", "BEGINSWITH", "beginswith", "ENDSWITH", "CONTAINS", "LIKE", "like", "MATCHES", "IN", "BETWEEN"])
        let options = modifiers()
        let base = random.pick(DifferentialFixture.strings)
        switch op.uppercased() {
        case "BEGINSWITH": return "\(path) \(op)\(options) \(stringLiteral(varyCase(prefix(of: base))))"
        case "ENDSWITH": return "\(path) \(op)\(options) \(stringLiteral(varyCase(suffix(of: base))))"
        case "CONTAINS": return "\(path) \(op)\(options) \(stringLiteral(varyCase(middle(of: base))))"
        case "LIKE": return "\(path) \(op)\(options) \(stringLiteral(likePattern(from: base)))"
        case "MATCHES": return "\(path) \(op)\(options) \(stringLiteral(regex(from: base)))"
        case "IN":
            let items = (0..<random.int(1...4)).map { _ in stringLiteral(varyCase(random.pick(DifferentialFixture.strings))) }
            return "\(path) IN\(options) {\(items.joined(separator: ", "))}"
        case "BETWEEN":
            let bounds = [random.pick(DifferentialFixture.strings), random.pick(DifferentialFixture.strings)].sorted()
            return "\(path) BETWEEN\(options) {\(stringLiteral(bounds[0])), \(stringLiteral(bounds[1]))}"
        default:
            let value = stringLiteral(random.chance(0.7) ? base : varyCase(base))
            return random.chance(0.1) ? "\(value) \(op)\(options) \(path)" : "\(path) \(op)\(options) \(value)"
        }
    }

    private mutating func modifiers() -> String {
        random.pick(["", "", "[c]", "[d]", "[cd]", "[CD]", "[dc]", "[n]", "[cdn]"])
    }

    // MARK: Values

    private mutating func varyCase(_ text: String) -> String {
        switch random.int(0...3) {
        case 0: return text.uppercased()
        case 1: return text.lowercased()
        case 2: return text.decomposedStringWithCanonicalMapping
        default: return text
        }
    }

    private mutating func prefix(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let count = scalars.isEmpty ? 0 : random.int(0...scalars.count)
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars.prefix(count))
        return result
    }

    private mutating func suffix(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        let count = scalars.isEmpty ? 0 : random.int(0...scalars.count)
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars.suffix(count))
        return result
    }

    private mutating func middle(of text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > 1 else { return text }
        let start = random.int(0...(scalars.count - 1))
        let end = random.int(start...scalars.count)
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars[start..<end])
        return result
    }

    private mutating func likePattern(from text: String) -> String {
        var pattern = ""
        for character in varyCase(text) {
            switch random.int(0...9) {
            case 0: pattern += "*"
            case 1: pattern += "?"
            case 2: pattern += String(character) + "*"
            default:
                pattern += character == "*" || character == "?" || character == "\\" ? "\\" + String(character) : String(character)
            }
        }
        if random.chance(0.3) { pattern = "*" + pattern }
        if random.chance(0.3) { pattern += "*" }
        return pattern
    }

    private mutating func regex(from text: String) -> String {
        switch random.int(0...5) {
        case 0: return NSRegularExpression.escapedPattern(for: text)
        case 1: return NSRegularExpression.escapedPattern(for: prefix(of: text)) + ".*"
        case 2: return ".*" + NSRegularExpression.escapedPattern(for: suffix(of: text))
        case 3: return random.pick(["[A-Z].*", ".*\\d+", "(?i)emile", ".", ".*😀.*", "[a-z]+", "\\w*", "é.*", ".*\\s.*"])
        default: return "(?i)" + NSRegularExpression.escapedPattern(for: middle(of: text)) + ".*"
        }
    }

    /// A string constant: inline (quoted with escapes) or as a `%@` argument.
    private mutating func stringLiteral(_ text: String) -> String {
        if random.chance(0.4) {
            return argument("%@", text)
        }
        let quote: Character = random.chance(0.5) ? "\"" : "'"
        var result = String(quote)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            default:
                if Character(scalar) == quote { result += "\\" + String(quote) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + String(quote)
    }

    private mutating func listArgument(count: Int) -> String {
        let kind = random.pick([Kind.integer, .double])
        var values: [Any] = []
        for _ in 0..<count {
            values.append(kind == .integer ? random.pick(DifferentialFixture.int64s) as Any : random.pick(DifferentialFixture.doubles) as Any)
        }
        if random.chance(0.5) {
            return argument("%@", values)
        }
        return argument("%@", Set(values.compactMap { $0 as? Int64 }))
    }

    private mutating func numberLiteral(kind: Kind) -> String {
        if random.chance(0.03) { return random.pick(["nil", "NULL"]) }
        switch kind {
        case .integer:
            let value = random.chance(0.6) ? random.pick(DifferentialFixture.int64s) : Int64(random.int(-60...60))
            switch random.int(0...5) {
            case 0:
                return argument("%@", value)
            case 1:
                return argument(random.pick(["%d", "%i", "%ld", "%lld"]), Int(value))
            default:
                if value == Int64.min { return "-9223372036854775807 - 1" }
                return String(value)
            }
        case .double:
            let value = random.chance(0.05) ? Double.nan : random.pick(DifferentialFixture.doubles + [Double(random.int(-60...60)) / 2])
            if value.isFinite && random.chance(0.3) {
                let text = String(value)
                return text.contains("e") && !text.contains(".") ? text.replacingOccurrences(of: "e", with: ".0e") : text
            }
            return argument(random.pick(["%@", "%f", "%lf"]), value)
        case .decimal:
            return argument("%@", random.pick(DifferentialFixture.decimals))
        case .string, .boolean, .date:
            return "0"
        }
    }

    private mutating func dateLiteral() -> String {
        let date = random.pick(DifferentialFixture.dates + [Date(timeIntervalSinceReferenceDate: Double(random.int(-1000...1000)))])
        if random.chance(0.5) {
            return argument("%@", date)
        }
        return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
    }
}
