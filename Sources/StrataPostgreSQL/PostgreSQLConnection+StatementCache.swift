import CLibPQ
import Foundation

extension PostgreSQLConnection {
    /// Runs `sql` with `parameters` as `execute(_:parameters:)` does, but through a statement
    /// this connection prepared on the server: the first run of a text with parameters of given
    /// types prepares it (`PQprepare`, with those types, so the server types every parameter as
    /// `execute(_:parameters:)` would), later runs only execute it (`PQexecPrepared`), so the
    /// server neither parses nor plans the text again.
    ///
    /// The connection keeps at most `PostgreSQLStatementCache.capacity` (100) such statements,
    /// named `strata_cached_1`, `strata_cached_2`, …; the one used longest ago is deallocated to
    /// make room. A `reset()` forgets them with the session. When the server no longer has a
    /// statement, or refuses it because a table changed under it (SQLSTATE 26000, or 0A000
    /// "cached plan must not change result type"), the statement is prepared again and run once
    /// more, unless the connection is in a transaction (the error ended it: it is thrown).
    ///
    /// Use it for statements that run many times; text made for one run (a multi-row `INSERT`)
    /// is better sent with `execute(_:parameters:)`. Poolers that do not keep a session's
    /// prepared statements (PgBouncer before 1.21 in transaction mode) need that one. Throws like
    /// `execute(_:parameters:)`. Call it on the thread holding the connection (one at a time);
    /// blocks until the server answers.
    @discardableResult
    public func executeCached(_ sql: String, parameters: [PostgreSQLValue] = []) throws -> PostgreSQLResult {
        try checkUsable(sql: sql)
        let encoded = try EncodedParameters(parameters, sql: sql)
        statementCache.adopt(session: session)
        let key = PostgreSQLStatementCache.Key(sql: sql, types: encoded.types)
        if let name = statementCache.name(for: key) {
            do {
                return try executePrepared(named: name, encoded, sql: sql)
            } catch let error as PostgreSQLError where error.sqlState == PostgreSQLError.SQLState.invalidStatementName || error.sqlState == PostgreSQLError.SQLState.featureNotSupported {
                // In a transaction the error ended it, and is thrown; the entry stays, so the
                // next run outside one meets the error again and mends it here.
                guard transactionStatus == .idle else { throw error }
                statementCache.remove(key)
                // The old statement may still be on the server (0A000): drop it, if it is there.
                _ = try? execute("DEALLOCATE \(try PostgreSQLIdentifier.quoted(name))")
            }
        }
        if let oldest = statementCache.leastRecentlyUsed() {
            try execute("DEALLOCATE \(try PostgreSQLIdentifier.quoted(oldest.name))")
            statementCache.remove(oldest.key)
        }
        preparedStatementCount += 1
        let name = "strata_cached_\(preparedStatementCount)"
        _ = try check(PQprepare(handle, name, sql, encoded.count, encoded.types), sql: sql, activity: "preparing a statement")
        statementCache.insert(name, for: key)
        return try executePrepared(named: name, encoded, sql: sql)
    }

    /// Runs the statement `name` of this session with `encoded` parameters (`PQexecPrepared`).
    private func executePrepared(named name: String, _ encoded: EncodedParameters, sql: String) throws -> PostgreSQLResult {
        let result = encoded.withValuePointers { values in
            PQexecPrepared(handle, name, encoded.count, values, encoded.lengths, encoded.formats, 0)
        }
        return try check(result, sql: sql, activity: "executing a prepared statement")
    }
}
