import Foundation
import StrataSQLite

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
    static func compare(_ a: SQLiteValue, _ b: SQLiteValue, collation: ValueCollation = .binary) -> Int {
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

    private static func rank(_ value: SQLiteValue) -> Int {
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

    /// Numeric comparison of two decimal texts; text that is not a number ("NaN") sorts after
    /// every number, ties broken byte-wise.
    static func compareDecimalText(_ a: String, _ b: String) -> Int {
        let x = Decimal(string: a, locale: DecimalText.posix).flatMap { $0.isNaN ? nil : $0 }
        let y = Decimal(string: b, locale: DecimalText.posix).flatMap { $0.isNaN ? nil : $0 }
        switch (x, y) {
        case (.some(let x), .some(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.some, .none): return -1
        case (.none, .some): return 1
        case (.none, .none): return StringMatching.compareBinary(a, b)
        }
    }
}
