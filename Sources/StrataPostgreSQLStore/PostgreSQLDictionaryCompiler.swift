import Strata
import StrataPostgreSQL

/// A dictionary fetch compiled to one PostgreSQL `SELECT`, and how to read each result column.
struct PostgreSQLDictionaryQuery: Sendable {
    /// How one result column is read back.
    enum Read: @unchecked Sendable {
        // @unchecked Sendable: frozen model descriptions.
        /// The value of an attribute (an attribute, a group key, a minimum or a maximum).
        case value(AttributeDescription)
        /// A whole number (`count`).
        case integer
        /// An exact sum as text: `Int64` when it fits, else the nearest `Double`.
        case sumText
        /// A double (an average).
        case double
    }

    var sql: String
    var parameters: [PostgreSQLValue]
    var reads: [Read]
}

/// Compiles a ``StoreDictionaryFetchRequest`` to one `SELECT [DISTINCT] … FROM <table> WHERE …
/// [GROUP BY …] ORDER BY … [LIMIT … OFFSET …]` that gives exactly Strata's results, or nil
/// when SQL cannot (the store then lets Strata compute the results over the matching rows):
///
/// - the predicate must compile exactly (``PostgreSQLCompiledFetch/predicateIsExact``);
/// - attributes of every type but decimal and transformable can be columns, group keys and sort
///   terms (strings ordered `COLLATE "C"`, NULLs first ascending); a floating-point group key is
///   the value of its group's first object (`(array_agg(x ORDER BY "$pk"))[1]`), since 0.0 and
///   −0.0 share a group;
/// - `count` of any attribute; `sum` and `average` of integers and booleans (exact: an average
///   is the exact sum as a double divided by the count, as Strata computes it; floating-point
///   and decimal sums are left to Strata, which adds them in an order of its own); `minimum` and
///   `maximum` of integers, booleans (`bool_and`, `bool_or`), strings and URIs (`COLLATE "C"`),
///   and of doubles, floats and dates as the first object's value among equal extremes
///   (`array_agg(x ORDER BY x, "$pk")`);
/// - distinct results only without aggregates, when no column is floating-point (two rows
///   differing only in 0.0 and −0.0 are one, and SQL would keep either) and every sort term is
///   a column.
///
/// Pure: compiles on any thread.
enum PostgreSQLDictionaryCompiler {
    static func compile(
        _ request: StoreDictionaryFetchRequest, fetch compiled: PostgreSQLCompiledFetch, table: PostgreSQLTable, alias: String
    ) -> PostgreSQLDictionaryQuery? {
        guard compiled.predicateIsExact, !(request.returnsDistinctResults && request.isAggregate) else { return nil }
        let entityName = request.rows.entity.name
        let quotedAlias = PostgreSQLText.quoted(alias)
        let primaryKey = PostgreSQLText.column(PostgreSQLTable.primaryKeyColumn, of: quotedAlias)
        func column(_ attribute: AttributeDescription) -> String? {
            table.column(forKey: attribute.name, ofEntityNamed: entityName).map { PostgreSQLText.column($0, of: quotedAlias) }
        }
        func isFloatingPoint(_ attribute: AttributeDescription) -> Bool { [.double, .float, .date].contains(attribute.type) }
        func isText(_ attribute: AttributeDescription) -> Bool { attribute.type == .string || attribute.type == .uri }
        func isInteger(_ attribute: AttributeDescription) -> Bool { [.integer16, .integer32, .integer64].contains(attribute.type) }

        /// The SQL of `term` and how to read it, or nil.
        /// Text values carry `COLLATE "C"` (Strata's byte order) in the expression itself.
        func compile(_ term: StoreDictionaryFetchRequest.Term) -> (sql: String, read: PostgreSQLDictionaryQuery.Read)? {
            switch term {
            case .attribute(let attribute):
                guard attribute.type != .decimal, attribute.type != .transformable, let value = column(attribute) else { return nil }
                if request.isAggregate && isFloatingPoint(attribute) { return ("(array_agg(\(value) ORDER BY \(primaryKey)))[1]", .value(attribute)) }
                return isText(attribute) ? (value + " COLLATE \"C\"", .value(attribute)) : (value, .value(attribute))
            case .aggregate(let aggregate, let attribute):
                guard let value = column(attribute) else { return nil }
                let number = attribute.type == .boolean ? "\(value)::integer" : value
                switch aggregate {
                case .count:
                    return ("count(\(value))", .integer)
                case .sum:
                    guard isInteger(attribute) || attribute.type == .boolean else { return nil }
                    return ("coalesce(sum(\(number)), 0)", .sumText)
                case .average:
                    guard isInteger(attribute) || attribute.type == .boolean else { return nil }
                    return ("(CASE WHEN count(\(value)) = 0 THEN NULL ELSE sum(\(number))::float8 / count(\(value)) END)", .double)
                case .minimum, .maximum:
                    let minimum = aggregate == .minimum
                    if isInteger(attribute) { return ("\(minimum ? "min" : "max")(\(value))", .value(attribute)) }
                    if isText(attribute) { return ("\(minimum ? "min" : "max")(\(value) COLLATE \"C\")", .value(attribute)) }
                    if attribute.type == .boolean { return ("\(minimum ? "bool_and" : "bool_or")(\(value))", .value(attribute)) }
                    guard isFloatingPoint(attribute) else { return nil }
                    return (
                        "(array_agg(\(value) ORDER BY \(value) \(minimum ? "ASC" : "DESC"), \(primaryKey)) FILTER (WHERE \(value) IS NOT NULL))[1]", .value(attribute)
                    )
                }
            }
        }

        var items: [String] = []
        var columnSQL: [String] = []
        var reads: [PostgreSQLDictionaryQuery.Read] = []
        for term in request.columns {
            guard let compiled = compile(term) else { return nil }
            columnSQL.append(compiled.sql)
            if request.returnsDistinctResults, case .value(let attribute) = compiled.read, isFloatingPoint(attribute) { return nil }
            // A sum is selected as text (read exactly) and ordered as a number.
            items.append(compiled.read.isSumText ? compiled.sql + "::text" : compiled.sql)
            reads.append(compiled.read)
        }
        var orderTerms: [String] = []
        for order in request.orders {
            guard let compiled = compile(order.term) else { return nil }
            if request.returnsDistinctResults && !columnSQL.contains(compiled.sql) { return nil }
            let direction = order.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"
            if case .sumText = compiled.read {
                // Strata's sum beyond 64 bits is a double: order by the nearest double (correctly
                // rounded from the exact sum), then, among equal doubles, by the exact sum
                // clamped to ±2^63 — which orders a 64-bit sum against a double as an exact
                // comparison does, and ties two sums that became the same double.
                orderTerms.append(compiled.sql + "::float8" + direction)
                orderTerms.append("least(greatest(\(compiled.sql), -9223372036854775808), 9223372036854775808)" + direction)
            } else {
                orderTerms.append(compiled.sql + direction)
            }
        }
        if request.ordersByObject { orderTerms.append(primaryKey + " ASC") }
        var groupTerms: [String] = []
        for key in request.groupBy {
            guard key.type != .decimal, key.type != .transformable, let value = column(key) else { return nil }
            groupTerms.append(value)
        }
        var sql = (request.returnsDistinctResults ? "SELECT DISTINCT " : "SELECT ") + items.joined(separator: ", ")
        sql += " FROM \(table.quotedName) AS \(quotedAlias) WHERE \(compiled.whereClause)"
        if !groupTerms.isEmpty { sql += " GROUP BY " + groupTerms.joined(separator: ", ") }
        if !orderTerms.isEmpty { sql += " ORDER BY " + orderTerms.joined(separator: ", ") }
        if request.fetchLimit > 0 { sql += " LIMIT \(request.fetchLimit)" }
        if request.fetchOffset > 0 { sql += " OFFSET \(request.fetchOffset)" }
        return PostgreSQLDictionaryQuery(sql: sql, parameters: compiled.parameters, reads: reads)
    }
}

extension PostgreSQLDictionaryQuery.Read {
    fileprivate var isSumText: Bool {
        if case .sumText = self { return true }
        return false
    }
}
