/// Names and codes of the SQL functions and collations Strata registers on every connection.
/// The implementations are the Swift functions the in-memory evaluator uses.
enum SQLNames {
    static let matchFunction = "strata_match"
    static let scalarFunction = "strata_fn"
    /// Aggregates computed by `NumericAccumulator`: numeric and decimal sums and averages.
    static let sumAggregate = "strata_sum"
    static let averageAggregate = "strata_avg"
    static let decimalSumAggregate = "strata_dsum"
    static let decimalAverageAggregate = "strata_davg"

    static let decimalCollation = "STRATA_DECIMAL"
    static let caseInsensitiveCollation = "STRATA_NOCASE"
    static let localizedCollation = "STRATA_LOCALIZED"

    /// The collation for folded comparisons with `options`.
    static func foldCollation(_ options: ComparisonOptions) -> String {
        switch (options.contains(.caseInsensitive), options.contains(.diacriticInsensitive)) {
        case (true, true): return "STRATA_FOLD_CD"
        case (true, false): return "STRATA_FOLD_C"
        case (false, true): return "STRATA_FOLD_D"
        case (false, false): return "BINARY"
        }
    }

    /// The collation clause for a value collation (empty for SQLite's default).
    static func collate(_ collation: ValueCollation) -> String {
        switch collation {
        case .binary: return ""
        case .decimal: return " COLLATE " + decimalCollation
        case .folded(let options): return " COLLATE " + foldCollation(options)
        case .caseInsensitive: return " COLLATE " + caseInsensitiveCollation
        case .localizedStandard: return " COLLATE " + localizedCollation
        }
    }

    static let stringOperatorCodes: [ComparisonOperator: Int64] = [
        .beginsWith: 1, .endsWith: 2, .contains: 3, .like: 4, .matches: 5,
    ]

    /// The operator of a `strata_match` code (a switch: it runs once per row).
    static func stringOperator(code: Int64) -> ComparisonOperator? {
        switch code {
        case 1: return .beginsWith
        case 2: return .endsWith
        case 3: return .contains
        case 4: return .like
        case 5: return .matches
        default: return nil
        }
    }

    /// Functions by `strata_fn` code; the code is the index plus one.
    static let functionsByCode: [BoundFunction] = [
        .add, .subtract, .multiply, .divide, .modulus, .power, .abs, .floor, .ceiling, .trunc, .sqrt, .exp, .ln, .log,
        .lowercase, .uppercase, .length,
    ]

    static func code(of function: BoundFunction) -> Int64 {
        functionsByCode.firstIndex(of: function).map { Int64($0) + 1 } ?? 0
    }

    /// The function of a `strata_fn` code (an index: it runs once per row).
    static func function(code: Int64) -> BoundFunction? {
        code >= 1 && code <= Int64(functionsByCode.count) ? functionsByCode[Int(code - 1)] : nil
    }
}
