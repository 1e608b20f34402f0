import Strata

extension PostgreSQLPredicateCompiler {
    /// The families of values two key paths may be compared in, where PostgreSQL compares exactly
    /// as Strata: integers (booleans as 0 and 1, `@count`), doubles, decimals, strings, URIs,
    /// dates, data, UUIDs. An integer against a double is left to memory (PostgreSQL would round
    /// the integer to a double).
    private enum Family: Equatable {
        case integer, double, decimal, string, uri, date, data, uuid
    }

    /// The family of `scalar` and its value as SQL in that family (a boolean as an integer).
    private func family(of scalar: PostgreSQLScalar) -> (Family, String)? {
        switch scalar.kind {
        case .count: return (.integer, scalar.sql)
        case .object: return nil
        case .attribute(let type):
            switch type {
            case .integer16, .integer32, .integer64: return (.integer, scalar.sql)
            case .boolean: return (.integer, "CAST(\(scalar.sql) AS integer)")
            case .double, .float: return (.double, scalar.sql)
            case .decimal: return (.decimal, scalar.sql)
            case .string: return (.string, "\(scalar.sql) COLLATE \"C\"")
            case .uri: return (.uri, "\(scalar.sql) COLLATE \"C\"")
            case .date: return (.date, scalar.sql)
            case .binaryData: return (.data, scalar.sql)
            case .uuid: return (.uuid, scalar.sql)
            case .transformable, .objectID, .undefined: return nil
            }
        }
    }

    /// `left op right` for two key paths (or `@count`s) of one family, with Strata's semantics:
    /// nil equals nil (`IS NOT DISTINCT FROM`), an ordering with nil or NaN is false, strings by
    /// bytes and without `[c]`/`[d]`; `BEGINSWITH`, `ENDSWITH` and `CONTAINS` between strings.
    mutating func compareScalars(_ left: PostgreSQLScalar, _ op: ObjectPredicate.Operator, _ options: ObjectPredicate.Options, _ right: PostgreSQLScalar) -> PostgreSQLCondition? {
        guard let (leftFamily, a) = family(of: left), let (rightFamily, b) = family(of: right), leftFamily == rightFamily else { return nil }
        if leftFamily == .string && !Self.isBinary(options) { return nil }
        let canBeNull = left.canBeNull || right.canBeNull
        switch op {
        case .equalTo: return PostgreSQLCondition(sql: "\(a) IS NOT DISTINCT FROM \(b)", canBeNull: false)
        case .notEqualTo: return PostgreSQLCondition(sql: "\(a) IS DISTINCT FROM \(b)", canBeNull: false)
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            let symbol = [ObjectPredicate.Operator.lessThan: "<", .lessThanOrEqualTo: "<=", .greaterThan: ">", .greaterThanOrEqualTo: ">="][op] ?? "="
            var sql = "\(a) \(symbol) \(b)"
            if leftFamily == .double { sql = "(\(sql) AND \(a) <> 'NaN'::float8 AND \(b) <> 'NaN'::float8)" }
            return PostgreSQLCondition(sql: sql, canBeNull: canBeNull)
        case .beginsWith, .endsWith, .contains:
            guard leftFamily == .string else { return nil }
            switch op {
            case .beginsWith: return PostgreSQLCondition(sql: "left(\(left.sql), char_length(\(right.sql))) COLLATE \"C\" = \(b)", canBeNull: canBeNull)
            case .endsWith: return PostgreSQLCondition(sql: "right(\(left.sql), char_length(\(right.sql))) COLLATE \"C\" = \(b)", canBeNull: canBeNull)
            default: return PostgreSQLCondition(sql: "strpos(\(a), \(right.sql)) > 0", canBeNull: canBeNull)
            }
        default:
            return nil
        }
    }
}
