import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// The rows `request` matches, in its order and window. For now every row of the requested
    /// entity (and its sub-entities when the request includes them) is read
    /// (``candidateRows(for:where:orderBy:limit:parameters:)``) and the request is evaluated in
    /// memory by Strata's engine (`StoreFetchRequest.evaluate`), which agrees with the SQLite
    /// store on every predicate; compiling the request to SQL will narrow the read.
    /// Callable from any thread.
    func matchingRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        let candidates = try candidateRows(for: request)
        // The connection is back in the pool here: evaluating may read more rows (key paths
        // through relationships) through this store.
        return try request.evaluate(candidates, in: self, options: options)
    }

    /// The rows of `request`'s entity (and of its sub-entities when `includesSubentities`),
    /// read with one statement on the entity's table:
    ///
    ///     SELECT <select list> FROM <table> WHERE "$entity" = ANY($1::text[]) [AND (<extraClause>)]
    ///         [ORDER BY <orderBy>] [LIMIT <limit>]
    ///
    /// `extraClause` and `orderBy` are SQL over the table's quoted columns (from
    /// ``PostgreSQLSchema``), whose parameters are `parameters`, numbered from `$2`: the hook a
    /// predicate compiler narrows the read with. Without them every candidate row is returned, in
    /// no particular order. Callable from any thread; holds a pooled connection only while it reads.
    func candidateRows(
        for request: StoreFetchRequest, where extraClause: String? = nil, orderBy: String? = nil, limit: Int? = nil, parameters: [PostgreSQLValue] = []
    ) throws -> [IncrementalStoreNode] {
        let plan = try plan(for: request.entity)
        let names = request.includesSubentities ? plan.entityNames : [request.entity.name]
        var sql = "SELECT \(plan.selectList) FROM \(plan.table.quotedName) WHERE \"\(PostgreSQLTable.entityColumn)\" = ANY($1::text[])"
        if let extraClause { sql += " AND (\(extraClause))" }
        if let orderBy { sql += " ORDER BY \(orderBy)" }
        if let limit { sql += " LIMIT \(limit)" }
        return try withConnection("Fetching \(request.entity.name) rows from the PostgreSQL store") { connection in
            let result = try connection.execute(sql, parameters: [PostgreSQLValueMapping.textArray(names)] + parameters)
            return try nodes(from: result, on: connection)
        }
    }
}
