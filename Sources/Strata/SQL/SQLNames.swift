/// Names and codes of the SQL functions and collations Strata registers on every connection.
/// The implementations are the Swift functions the in-memory evaluator uses.
enum SQLNames {
    static let matchFunction = "strata_match"
    static let scalarFunction = "strata_fn"

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

    static func stringOperator(code: Int64) -> ComparisonOperator? {
        stringOperatorCodes.first { $0.value == code }?.key
    }

    static let functionCodes: [(BoundFunction, Int64)] = [
        (.add, 1), (.subtract, 2), (.multiply, 3), (.divide, 4), (.modulus, 5), (.power, 6), (.abs, 7), (.floor, 8),
        (.ceiling, 9), (.trunc, 10), (.sqrt, 11), (.exp, 12), (.ln, 13), (.log, 14), (.lowercase, 15), (.uppercase, 16),
        (.length, 17),
    ]

    static func code(of function: BoundFunction) -> Int64 {
        functionCodes.first { $0.0 == function }?.1 ?? 0
    }

    static func function(code: Int64) -> BoundFunction? {
        functionCodes.first { $0.1 == code }?.0
    }
}
