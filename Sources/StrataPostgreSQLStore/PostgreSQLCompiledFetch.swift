import StrataPostgreSQL

/// A fetch request compiled to PostgreSQL: the `WHERE` clause, its parameters and the `ORDER BY`
/// list, for `SELECT … FROM <table> AS <alias> WHERE <whereClause> [ORDER BY <orderBy>]`.
///
/// The contract with the store:
/// - ``whereClause`` selects the request's entity (and its sub-entities when the request
///   includes them) by `"$entity"` (except in a table holding no other entity, where every row is
///   the entity's), and every conjunct of the predicate that compiles exactly.
///   When ``predicateIsExact`` is true it selects exactly the rows Strata's in-memory engine
///   keeps; otherwise it selects a superset, and the store finishes the request with
///   `StoreFetchRequest.evaluate(_:in:options:)` (which also sorts and applies offset and limit).
/// - ``orderBy`` orders exactly as Strata's engine does, ties included: it ends with the table's
///   `"$pk"`, the tie-break of every Strata store. It is nil when a sort descriptor cannot be
///   done exactly in SQL.
/// - So when ``canWindowInSQL`` is true the store may add `ORDER BY`, `LIMIT` and `OFFSET` and
///   return the rows as they come.
///
/// A value type, `Sendable`: compile on any thread, run on any connection.
struct PostgreSQLCompiledFetch: Sendable {
    /// The condition after `WHERE` (never empty; parameters are `$1`, `$2`, … in ``parameters``).
    var whereClause: String
    /// The values of `$1`, `$2`, … in order.
    var parameters: [PostgreSQLValue]
    /// The list after `ORDER BY` (ending with `"$pk"`), or nil when the sort must be done in memory.
    var orderBy: String?
    /// Whether ``whereClause`` selects exactly the request's rows (every conjunct compiled).
    var predicateIsExact: Bool
    /// How many top-level conjuncts of the predicate went to SQL, and how many stay in memory.
    var compiledConjuncts: Int
    /// The top-level conjuncts left to the in-memory engine.
    var memoryConjuncts: Int

    /// Whether the store may run the whole request in SQL: an exact predicate and an exact order,
    /// so `ORDER BY`, `OFFSET` and `LIMIT` give the request's rows in the request's order.
    var canWindowInSQL: Bool { predicateIsExact && orderBy != nil }
}
