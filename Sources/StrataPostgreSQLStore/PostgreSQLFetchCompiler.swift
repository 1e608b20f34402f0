import Foundation
import Strata
import StrataPostgreSQL

/// Compiles a fetch request to PostgreSQL (see ``PostgreSQLCompiledFetch`` for the contract).
///
/// The predicate is split into its top-level `AND` conjuncts (nested `AND`s flattened); each one
/// that compiles exactly (``PostgreSQLPredicateCompiler``) goes to SQL, the others are left out
/// and make the result a superset. The sort compiles when every descriptor does
/// (``PostgreSQLSortCompiler``). Pure: no connection, no I/O; O(size of the request).
enum PostgreSQLFetchCompiler {
    /// Compiles `request` for `SELECT … FROM <table of the entity> AS <tableAlias>`.
    ///
    /// - Parameters:
    ///   - schema: the store's names.
    ///   - tableAlias: the table's alias in the statement, unquoted (quoted here).
    ///   - objectKey: the key of an object ID of this store (the store's
    ///     `referenceObject(for:)`); nil for IDs of other stores and temporary IDs, which match
    ///     no row.
    static func compile(
        _ request: StoreFetchRequest, schema: PostgreSQLSchema, tableAlias: String, objectKey: @escaping (ManagedObjectID) -> Int64?
    ) -> PostgreSQLCompiledFetch {
        compile(
            entity: request.entity, includesSubentities: request.includesSubentities, predicate: request.predicate, sortDescriptors: request.sortDescriptors,
            schema: schema, tableAlias: tableAlias, objectKey: objectKey)
    }

    /// Compiles a fetch of `entity` (and its sub-entities when `includesSubentities`) by its
    /// parts: what ``compile(_:schema:tableAlias:objectKey:)`` does with a request's.
    static func compile(
        entity: EntityDescription, includesSubentities: Bool, predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor],
        schema: PostgreSQLSchema, tableAlias: String, objectKey: @escaping (ManagedObjectID) -> Int64?
    ) -> PostgreSQLCompiledFetch {
        var compiler = PostgreSQLPredicateCompiler(schema: schema, entity: entity, tableAlias: tableAlias, objectKey: objectKey)
        let alias = PostgreSQLText.quoted(tableAlias)
        var parts: [PostgreSQLCondition] = []
        if let filter = entityFilter(entity, includesSubentities: includesSubentities, schema: schema, alias: alias, parameters: &compiler.parameters) { parts.append(filter) }
        var compiled = 0
        var left = 0
        if let predicate, predicate.syntaxError != nil {
            // A malformed predicate (its node is FALSEPREDICATE): fetches throw before a store
            // sees one; should one come, memory answers it.
            left = 1
        } else if let predicate {
            for conjunct in conjuncts(of: predicate.node) {
                let saved = compiler.parameters
                if let condition = compiler.compile(conjunct) {
                    if condition != .alwaysTrue { parts.append(condition) }
                    compiled += 1
                } else {
                    compiler.parameters = saved
                    left += 1
                }
            }
        }
        let orderBy = PostgreSQLSortCompiler.orderBy(sortDescriptors, entity: entity, schema: schema, tableAlias: tableAlias)
        return PostgreSQLCompiledFetch(
            whereClause: parts.isEmpty ? PostgreSQLCondition.alwaysTrue.sql : parts.map(\.sql).joined(separator: " AND "), parameters: compiler.parameters.values, orderBy: orderBy,
            predicateIsExact: left == 0, compiledConjuncts: compiled, memoryConjuncts: left)
    }

    /// `alias."$entity" IN (…)`: the request's entity, and its descendants when the request
    /// includes sub-entities; nil for an entity whose table holds no other (a root without
    /// sub-entities), whose rows are all the entity's. The filter there cost the server a text
    /// comparison per row (about 10 ms in a read of 100,000 rows); the SQLite store likewise
    /// reads a one-entity table without its entity column (`FetchStatements.entityCode(of:)`).
    private static func entityFilter(
        _ entity: EntityDescription, includesSubentities: Bool, schema: PostgreSQLSchema, alias: String, parameters: inout PostgreSQLParameters
    ) -> PostgreSQLCondition? {
        if let table = schema.table(for: entity), !table.holdsSeveralEntities { return nil }
        var names = [entity.name]
        if includesSubentities {
            var queue = entity.subentities
            var seen: Set<String> = [entity.name]
            while !queue.isEmpty {
                let entity = queue.removeFirst()
                guard seen.insert(entity.name).inserted else { continue }
                names.append(entity.name)
                queue.append(contentsOf: entity.subentities)
            }
        }
        let column = PostgreSQLText.column(PostgreSQLTable.entityColumn, of: alias)
        let placeholders = names.map { parameters.add(.text($0)) }
        if placeholders.count == 1 { return PostgreSQLCondition(sql: "\(column) = \(placeholders[0])", canBeNull: false) }
        return PostgreSQLCondition(sql: "\(column) IN (\(placeholders.joined(separator: ", ")))", canBeNull: false)
    }

    /// The top-level conjuncts of `node`: nested `AND`s flattened, `TRUEPREDICATE` dropped.
    static func conjuncts(of node: PredicateNode) -> [PredicateNode] {
        switch node {
        case .and(let terms): return terms.flatMap { conjuncts(of: $0) }
        case .constant(true): return []
        default: return [node]
        }
    }
}
