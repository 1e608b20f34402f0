/// A compiled boolean SQL expression, and whether it can be `NULL`.
///
/// Strata's engine is two-valued (a comparison with nil is false, never unknown), SQL's is
/// three-valued. A top-level `NULL` is harmless (`WHERE` drops the row, as false would), but
/// `NOT NULL` is `NULL`, not true: the compilers therefore track which conditions can be `NULL`
/// and wrap those in `COALESCE(…, false)` before negating them. A value type.
struct PostgreSQLCondition: Sendable, Equatable {
    /// The SQL text (parameters as `$n`).
    var sql: String
    /// Whether the expression can evaluate to `NULL` for some row.
    var canBeNull: Bool

    /// `TRUE`.
    static let alwaysTrue = PostgreSQLCondition(sql: "TRUE", canBeNull: false)
    /// `FALSE`.
    static let alwaysFalse = PostgreSQLCondition(sql: "FALSE", canBeNull: false)

    /// The condition as a two-valued expression (`NULL` read as false).
    var twoValued: String { canBeNull ? "COALESCE(\(sql), FALSE)" : sql }

    /// The negation, two-valued as Strata's `NOT`.
    var negated: PostgreSQLCondition { PostgreSQLCondition(sql: "NOT " + (canBeNull ? twoValued : "(\(sql))"), canBeNull: false) }

    /// All of `parts` (`TRUE` for none).
    static func all(_ parts: [PostgreSQLCondition]) -> PostgreSQLCondition {
        combine(parts, with: "AND", empty: .alwaysTrue)
    }

    /// Any of `parts` (`FALSE` for none).
    static func any(_ parts: [PostgreSQLCondition]) -> PostgreSQLCondition {
        combine(parts, with: "OR", empty: .alwaysFalse)
    }

    /// `parts` joined by `word` in parentheses; `empty` for none, the part itself for one.
    private static func combine(_ parts: [PostgreSQLCondition], with word: String, empty: PostgreSQLCondition) -> PostgreSQLCondition {
        guard parts.count > 1 else { return parts.first ?? empty }
        return PostgreSQLCondition(sql: "(" + parts.map(\.sql).joined(separator: " \(word) ") + ")", canBeNull: parts.contains { $0.canBeNull })
    }
}
