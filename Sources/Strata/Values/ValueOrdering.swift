import Foundation

/// How two stored values are compared: the collation of their attribute.
enum ValueCollation: Hashable, Sendable {
    /// SQLite's default: numbers numerically, text byte-wise, blobs byte-wise.
    case binary
    /// Decimal text compared numerically (collation `STRATA_DECIMAL`).
    case decimal
    /// Text compared after `[c]`/`[d]` folding.
    case folded(ComparisonOptions)
    /// Case-insensitive sort (collation `STRATA_NOCASE`).
    case caseInsensitive
    /// Natural sort (collation `STRATA_LOCALIZED`).
    case localizedStandard
}

/// SQLite's ordering of values, implemented once in Swift so that in-memory evaluation and
/// sorting agree with the SQL the store runs: NULL < numbers < text < blobs; integers and reals
/// compare exactly; text by the collation.
enum ValueOrdering {
    /// Three-way comparison: -1, 0 or 1.
    static func compare(_ a: StoredValue, _ b: StoredValue, collation: ValueCollation = .binary) -> Int {
        let rankA = rank(a)
        let rankB = rank(b)
        if rankA != rankB { return rankA < rankB ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.real(let x), .real(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer(let x), .real(let y)): return -compareRealToInteger(y, x)
        case (.real(let x), .integer(let y)): return compareRealToInteger(x, y)
        case (.text(let x), .text(let y)): return compareText(x, y, collation)
        case (.blob(let x), .blob(let y)): return compareBytes(x, y)
        default: return 0
        }
    }

    private static func rank(_ value: StoredValue) -> Int {
        switch value {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// Exact comparison of a double with an integer (no rounding of large integers).
    static func compareRealToInteger(_ real: Double, _ integer: Int64) -> Int {
        if real.isNaN { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return -1 }
        if real >= 9_223_372_036_854_775_808.0 { return 1 }
        let truncated = Int64(real.rounded(.towardZero))
        if truncated != integer { return truncated < integer ? -1 : 1 }
        let fraction = real - Double(truncated)
        return fraction == 0 ? 0 : (fraction < 0 ? -1 : 1)
    }

    static func compareText(_ a: String, _ b: String, _ collation: ValueCollation) -> Int {
        switch collation {
        case .binary: return StringMatching.compareBinary(a, b)
        case .decimal: return compareDecimalText(a, b)
        case .folded(let options): return StringMatching.compare(a, b, options)
        case .caseInsensitive: return StringMatching.compareCaseInsensitive(a, b)
        case .localizedStandard: return StringMatching.compareLocalizedStandard(a, b)
        }
    }

    static func compareBytes(_ a: Data, _ b: Data) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Numeric comparison of two decimal texts. Text that is not a `Decimal` but is a double
    /// (a constant beyond Decimal's range: "inf", "1e+300") compares as that double; text that is
    /// neither ("NaN") sorts after every number, ties broken byte-wise.
    static func compareDecimalText(_ a: String, _ b: String) -> Int {
        compare(decimalKey(a), decimalKey(b), a, b)
    }

    /// A decimal text as a number: a `Decimal`, a double beyond Decimal's range, or not a number.
    enum DecimalKey: Sendable {
        case number(Decimal)
        case double(Double)
        case notANumber
    }

    private static let decimalMemo = BoundedMemo<BinaryStringKey, DecimalKey>(capacity: 16_384)

    /// Parses (memoized: the same stored values are compared again and again).
    static func decimalKey(_ text: String) -> DecimalKey {
        decimalMemo.value(for: BinaryStringKey(text)) {
            if let decimal = Decimal(string: text, locale: DecimalText.posix), !decimal.isNaN { return .number(decimal) }
            if let double = Double(text), !double.isNaN { return .double(double) }
            return .notANumber
        }
    }

    /// Three-way comparison of parsed decimal texts (`a` and `b` break ties of non-numbers).
    static func compare(_ x: DecimalKey, _ y: DecimalKey, _ a: String, _ b: String) -> Int {
        switch (x, y) {
        case (.number(let x), .number(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)): return compareDoubles(x, y)
        case (.number(let x), .double(let y)): return compareDoubles(NSDecimalNumber(decimal: x).doubleValue, y)
        case (.double(let x), .number(let y)): return compareDoubles(x, NSDecimalNumber(decimal: y).doubleValue)
        case (.notANumber, .notANumber): return StringMatching.compareBinary(a, b)
        case (.notANumber, _): return 1
        case (_, .notANumber): return -1
        }
    }

    private static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        x == y ? 0 : (x < y ? -1 : 1)
    }
}
