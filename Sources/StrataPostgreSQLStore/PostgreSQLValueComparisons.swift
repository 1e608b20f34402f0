import Foundation
import Strata

extension PostgreSQLPredicateCompiler {
    /// `scalar op constant` for a scalar of attribute type `type` (`integer64` for `@count`),
    /// with Strata's semantics:
    /// - `== nil` is `IS NULL`; `!= c` is `IS DISTINCT FROM` (nil differs from every value);
    ///   `<`, `>`, … and the string operators are false when either side is nil;
    /// - numbers compare exactly across integers and doubles; NaN equals only NaN and is never
    ///   ordered; booleans are the integers 0 and 1;
    /// - strings compare by their UTF-8 bytes (`COLLATE "C"`); `[c]`/`[d]` folding, `LIKE` and
    ///   `MATCHES` stay in memory, and so does text holding U+0000, which PostgreSQL cannot hold.
    mutating func compareValue(
        _ scalar: PostgreSQLScalar, type: AttributeType, _ op: ObjectPredicate.Operator, _ options: ObjectPredicate.Options, _ constant: PostgreSQLConstant
    ) -> PostgreSQLCondition? {
        let x = scalar.sql
        // PostgreSQL text cannot hold U+0000: such a constant is compared in memory.
        if case .text(let text) = constant, text.utf8.contains(0) { return nil }
        if case .null = constant {
            switch op {
            case .equalTo: return scalar.canBeNull ? PostgreSQLCondition(sql: "\(x) IS NULL", canBeNull: false) : .alwaysFalse
            case .notEqualTo: return scalar.canBeNull ? PostgreSQLCondition(sql: "\(x) IS NOT NULL", canBeNull: false) : .alwaysTrue
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .beginsWith, .endsWith, .contains, .like, .matches: return .alwaysFalse
            case .in, .between: return nil
            }
        }
        switch (type, constant) {
        case (.integer16, .integer(let n)), (.integer32, .integer(let n)), (.integer64, .integer(let n)):
            return plain(scalar, x, op, parameters.add(.int64(n)))
        case (.boolean, .integer(let n)):
            return plain(scalar, "CAST(\(x) AS integer)", op, parameters.add(.int64(n)))
        case (.integer16, .real(let c)), (.integer32, .real(let c)), (.integer64, .real(let c)), (.boolean, .real(let c)):
            return integer(scalar, type == .boolean ? "CAST(\(x) AS integer)" : x, op, c)
        case (.double, .integer(let n)), (.float, .integer(let n)):
            guard n.magnitude <= PostgreSQLConstant.exactIntegerLimit.magnitude else { return nil }
            return double(scalar, x, op, Double(n))
        case (.double, .real(let c)), (.float, .real(let c)):
            return double(scalar, x, op, c)
        case (.date, .date(let seconds)):
            guard seconds.isFinite else { return nil }
            return plain(scalar, x, op, parameters.add(.double(seconds)))
        case (.decimal, .decimal(let text)):
            return plain(scalar, x, op, parameters.add(.text(text)) + "::numeric")
        case (.binaryData, .bytes(let data)):
            return plain(scalar, x, op, parameters.add(.bytes(data)))
        case (.uuid, .uuid(let uuid)):
            return plain(scalar, x, op, parameters.add(.uuid(uuid)))
        case (.uri, .text(let text)):
            // The binder compares URIs without folding, whatever the options.
            return plain(scalar, "\(x) COLLATE \"C\"", op, parameters.add(.text(text)))
        case (.string, .text(let text)):
            guard Self.isBinary(options) else { return nil }
            return string(scalar, x, op, text)
        default:
            return nil
        }
    }

    /// `x op value` for the operators every type shares (`==`, `!=`, ordering); nil for others.
    private func plain(_ scalar: PostgreSQLScalar, _ x: String, _ op: ObjectPredicate.Operator, _ value: String) -> PostgreSQLCondition? {
        switch op {
        case .equalTo: return PostgreSQLCondition(sql: "\(x) = \(value)", canBeNull: scalar.canBeNull)
        case .notEqualTo: return PostgreSQLCondition(sql: "\(x) IS DISTINCT FROM \(value)", canBeNull: false)
        case .lessThan: return PostgreSQLCondition(sql: "\(x) < \(value)", canBeNull: scalar.canBeNull)
        case .lessThanOrEqualTo: return PostgreSQLCondition(sql: "\(x) <= \(value)", canBeNull: scalar.canBeNull)
        case .greaterThan: return PostgreSQLCondition(sql: "\(x) > \(value)", canBeNull: scalar.canBeNull)
        case .greaterThanOrEqualTo: return PostgreSQLCondition(sql: "\(x) >= \(value)", canBeNull: scalar.canBeNull)
        default: return nil
        }
    }

    /// An integer (or boolean as integer) compared with a double, as integers.
    private mutating func integer(_ scalar: PostgreSQLScalar, _ x: String, _ op: ObjectPredicate.Operator, _ c: Double) -> PostgreSQLCondition? {
        if c.isNaN {
            // Strata keeps NaN as text: equal to no number, never ordered.
            switch op {
            case .equalTo: return .alwaysFalse
            case .notEqualTo: return .alwaysTrue
            default: return .alwaysFalse
            }
        }
        switch PostgreSQLIntegerBound.make(op, c) {
        case .everyValue?: return scalar.canBeNull ? PostgreSQLCondition(sql: "\(x) IS NOT NULL", canBeNull: false) : .alwaysTrue
        case .noValue?: return .alwaysFalse
        case .always?: return .alwaysTrue
        case .compare(let op, let bound)?: return plain(scalar, x, op, parameters.add(.int64(bound)))
        case nil: return nil
        }
    }

    /// A double compared with a double: NaN (the column's or the constant's) equals only NaN and
    /// is never ordered, where PostgreSQL orders NaN above every number.
    private mutating func double(_ scalar: PostgreSQLScalar, _ x: String, _ op: ObjectPredicate.Operator, _ c: Double) -> PostgreSQLCondition? {
        switch op {
        case .equalTo, .notEqualTo:
            return plain(scalar, x, op, parameters.add(.double(c)))
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            if c.isNaN { return .alwaysFalse }
            guard let comparison = plain(scalar, x, op, parameters.add(.double(c))) else { return nil }
            return PostgreSQLCondition(sql: "(\(comparison.sql) AND \(x) <> 'NaN'::float8)", canBeNull: comparison.canBeNull)
        default:
            return nil
        }
    }

    /// A string compared with text by UTF-8 bytes: `COLLATE "C"` for equality and order (byte
    /// order, as Strata's binary collation); `BEGINSWITH`, `ENDSWITH` and `CONTAINS` by
    /// characters, which for valid UTF-8 is the same as by bytes. An empty pattern matches every
    /// non-nil string.
    private mutating func string(_ scalar: PostgreSQLScalar, _ x: String, _ op: ObjectPredicate.Operator, _ text: String) -> PostgreSQLCondition? {
        let length = text.unicodeScalars.count
        switch op {
        case .beginsWith, .endsWith, .contains:
            if length == 0 { return scalar.canBeNull ? PostgreSQLCondition(sql: "\(x) IS NOT NULL", canBeNull: false) : .alwaysTrue }
            let placeholder = parameters.add(.text(text))
            let sql: String
            switch op {
            case .beginsWith: sql = "left(\(x), \(length)) COLLATE \"C\" = \(placeholder)"
            case .endsWith: sql = "right(\(x), \(length)) COLLATE \"C\" = \(placeholder)"
            default: sql = "strpos(\(x) COLLATE \"C\", \(placeholder)) > 0"
            }
            return PostgreSQLCondition(sql: sql, canBeNull: scalar.canBeNull)
        case .like, .matches:
            return nil
        default:
            return plain(scalar, "\(x) COLLATE \"C\"", op, parameters.add(.text(text)))
        }
    }
}
