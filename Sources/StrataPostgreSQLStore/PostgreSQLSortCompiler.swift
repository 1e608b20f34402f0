import Strata

/// Compiles sort descriptors to an `ORDER BY` list that orders exactly as Strata's engine.
///
/// Strata orders nil first (ascending; last descending), numbers numerically, strings by their
/// UTF-8 bytes with the default comparator (PostgreSQL's `COLLATE "C"`), decimals numerically,
/// NaN after every number (as PostgreSQL does), data and UUIDs by their bytes; ties are broken
/// by the primary key. Key paths may go through to-one relationships (a scalar subquery on the
/// target's table) or end in `@count`, `@min` or `@max` (subqueries). The `caseInsensitive` and
/// `localizedStandard` comparators, the other aggregates, and types without a byte order here (transformable, object ID) are not
/// compiled: the whole sort is then done in memory. Pure functions.
enum PostgreSQLSortCompiler {
    /// `"k1" ASC NULLS FIRST, …, alias."$pk"`, or nil when a descriptor cannot be compiled.
    static func orderBy(_ descriptors: [ObjectSortDescriptor], entity: EntityDescription, schema: PostgreSQLSchema, tableAlias: String) -> String? {
        // Its aliases may repeat those of the WHERE clause's subqueries: each names a row only
        // inside its own scalar subquery, so they never meet.
        var compiler = PostgreSQLPredicateCompiler(schema: schema, entity: entity, tableAlias: tableAlias, objectKey: { _ in nil })
        var terms: [String] = []
        for descriptor in descriptors {
            let components = descriptor.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard case .scalar(let scalar)? = compiler.resolveKeyPath(from: compiler.root, components[...]) else { return nil }
            var expression = scalar.sql
            let type: AttributeType
            switch scalar.kind {
            case .attribute(let attributeType):
                // Strata sorts by an aggregate under the binary collation: a decimal @min/@max
                // by its text's bytes, which no SQL order reproduces.
                if attributeType == .decimal && components.contains(where: { $0.hasPrefix("@") }) { return nil }
                type = attributeType
            case .count: type = .integer64
            case .object: return nil
            }
            switch type {
            case .string:
                guard descriptor.comparator == .default else { return nil }
                expression += " COLLATE \"C\""
            case .uri:
                expression += " COLLATE \"C\""
            case .integer16, .integer32, .integer64, .decimal, .double, .float, .boolean, .date, .binaryData, .uuid:
                break
            case .transformable, .objectID, .undefined:
                return nil
            }
            terms.append(expression + (descriptor.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
        }
        terms.append(PostgreSQLText.column(PostgreSQLTable.primaryKeyColumn, of: PostgreSQLText.quoted(tableAlias)))
        return terms.joined(separator: ", ")
    }
}
