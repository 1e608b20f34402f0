import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// The alias of the fetched table in fetch statements.
    static let fetchAlias = "t"

    /// `request` compiled for this store (``PostgreSQLFetchCompiler``): the WHERE clause of the
    /// conjuncts SQL does exactly as Strata does, the ORDER BY when the sort is exact too.
    func compiledFetch(_ request: StoreFetchRequest) -> PostgreSQLCompiledFetch {
        PostgreSQLFetchCompiler.compile(request, schema: schema, tableAlias: Self.fetchAlias) { [weak self] id in self?.referenceObject(for: id) }
    }

    /// The rows `request` matches, in its order and window. When the predicate and the sort
    /// compile exactly, one statement does everything (`WHERE`, `ORDER BY … "$pk"`, `LIMIT`,
    /// `OFFSET`); otherwise the statement reads a superset (the exact conjuncts) and Strata's
    /// in-memory engine (`StoreFetchRequest.evaluate`) finishes the request, with the same
    /// results. Reads through the query generation `options` names, if any. Callable from any
    /// thread.
    func matchingRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> IncrementalStoreRowList {
        try matchingRows(request, compiled: compiledFetch(request), options: options)
    }

    /// ``matchingRows(_:options:)`` with the request already compiled.
    private func matchingRows(_ request: StoreFetchRequest, compiled: PostgreSQLCompiledFetch, options: ReadOptions) throws -> IncrementalStoreRowList {
        let plan = try plan(for: request.entity)
        let sql = "SELECT \(plan.selectList) FROM \(plan.table.quotedName) AS \"\(Self.fetchAlias)\" WHERE \(compiled.whereClause)"
        if compiled.canWindowInSQL {
            // A fetch without sort, limit or offset returns its rows in key order: they are read
            // in the table's own order and put in key order here (no sort when the table's order
            // is the key's, as after inserts). `ORDER BY "$pk"` made the server walk the key's
            // index instead of scanning the table: about twice its time for 100,000 rows.
            let keyOrderHere = request.sortDescriptors.isEmpty && request.fetchLimit == 0 && request.fetchOffset == 0
            let window = keyOrderHere ? "" : Self.window(compiled, request)
            return try reading("Fetching \(request.entity.name) rows from the PostgreSQL store", options: options) { connection in
                try rowList(from: run(sql + window, parameters: compiled.parameters, on: connection), plan: plan, on: connection, inKeyOrder: keyOrderHere)
            }
        }
        let candidates = try reading("Fetching \(request.entity.name) rows from the PostgreSQL store", options: options) { connection in
            try rowList(from: run(sql, parameters: compiled.parameters, on: connection), plan: plan, on: connection)
        }
        // The connection is back in the pool here: evaluating may read more rows (key paths
        // through relationships) through this store.
        return IncrementalStoreRowList(try request.evaluate(candidates.nodes, in: self, options: options))
    }

    /// The IDs of the rows `request` matches, in order: only keys (and, in a table of several
    /// entities, entity names) are read when the whole request runs in SQL. Callable from any
    /// thread.
    func matchingIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
        let compiled = compiledFetch(request)
        guard compiled.canWindowInSQL else { return try matchingRows(request, compiled: compiled, options: options).objectIDs }
        let plan = try plan(for: request.entity)
        // Every row of a table of one entity is that entity's (as in `rowList(from:plan:on:inKeyOrder:)`).
        let readsEntity = plan.entityColumnIndex != nil
        let columns = "\"\(PostgreSQLTable.primaryKeyColumn)\"" + (readsEntity ? ", \"\(PostgreSQLTable.entityColumn)\"" : "")
        let sql = "SELECT \(columns) FROM \(plan.table.quotedName) AS \"\(Self.fetchAlias)\" WHERE \(compiled.whereClause)" + Self.window(compiled, request)
        let entities = model.entitiesByName
        return try reading("Fetching \(request.entity.name) IDs from the PostgreSQL store", options: options) { connection in
            try run(sql, parameters: compiled.parameters, on: connection).map { row in
                guard let key = try row.int64(0), let entity = readsEntity ? try row.string(1).flatMap({ entities[$0] }) : plan.entity else {
                    throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "A row of the PostgreSQL store has no key or an unknown entity", url: redactedURL)
                }
                return newObjectID(for: entity, referenceObject: key)
            }
        }
    }

    /// How many rows `request` matches within its offset and limit: `count(*)` in SQL when
    /// the predicate compiles exactly (the window is arithmetic then, whatever the sort).
    /// Callable from any thread.
    func matchingCount(_ request: StoreFetchRequest, options: ReadOptions) throws -> Int {
        let compiled = compiledFetch(request)
        guard compiled.predicateIsExact else { return try matchingRows(request, compiled: compiled, options: options).count }
        let plan = try plan(for: request.entity)
        let sql = "SELECT count(*) FROM \(plan.table.quotedName) AS \"\(Self.fetchAlias)\" WHERE \(compiled.whereClause)"
        let total = try reading("Counting \(request.entity.name) rows in the PostgreSQL store", options: options) { connection in
            try run(sql, parameters: compiled.parameters, on: connection).first?.int64(0) ?? 0
        }
        let afterOffset = max(0, Int(total) - max(0, request.fetchOffset))
        return request.fetchLimit > 0 ? min(afterOffset, request.fetchLimit) : afterOffset
    }

    /// ` ORDER BY … LIMIT … OFFSET …` for a request that runs whole in SQL.
    private static func window(_ compiled: PostgreSQLCompiledFetch, _ request: StoreFetchRequest) -> String {
        var clause = compiled.orderBy.map { " ORDER BY \($0)" } ?? ""
        if request.fetchLimit > 0 { clause += " LIMIT \(request.fetchLimit)" }
        if request.fetchOffset > 0 { clause += " OFFSET \(request.fetchOffset)" }
        return clause
    }
}
