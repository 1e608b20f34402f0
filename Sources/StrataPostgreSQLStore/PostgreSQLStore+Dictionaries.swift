import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// Runs a dictionary fetch as one `SELECT … GROUP BY … ORDER BY … LIMIT` when
    /// ``PostgreSQLDictionaryCompiler`` can give exactly Strata's results, else returns nil (Strata
    /// then computes them over the matching rows). Reads through the query generation
    /// `options` names, if any. Callable from any thread.
    func dictionaryRows(_ request: StoreDictionaryFetchRequest, options: ReadOptions) throws -> [[Any?]]? {
        let plan = try plan(for: request.rows.entity)
        guard let query = PostgreSQLDictionaryCompiler.compile(request, fetch: compiledFetch(request.rows), table: plan.table, alias: Self.fetchAlias) else { return nil }
        return try reading("Fetching \(request.rows.entity.name) dictionaries from the PostgreSQL store", options: options) { connection in
            try run(query.sql, parameters: query.parameters, on: connection).map { row in
                try query.reads.enumerated().map { index, read -> Any? in
                    switch read {
                    case .value(let attribute): return try PostgreSQLValueMapping.value(of: row, column: index, for: attribute)
                    case .integer: return try row.int64(index)
                    case .double: return try row.double(index)
                    case .sumText:
                        guard let text = try row.string(index) else { return nil }
                        if let int = Int64(text) { return int }
                        // Beyond 64 bits Strata's sum is the nearest double, as parsing gives.
                        return Double(text)
                    }
                }
            }
        }
    }
}
