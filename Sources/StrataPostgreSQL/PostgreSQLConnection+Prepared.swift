import CLibPQ
import Foundation

/// A statement prepared on one connection (`PQprepare`): the server parsed and planned it once,
/// and `PostgreSQLConnection.execute(_:parameters:)` runs it
/// again with new parameters (`PQexecPrepared`) without sending or parsing its text.
///
/// It belongs to the connection and the server session it was prepared in: running it on
/// another connection, or on its own after `reset()` (a new session, without it), throws
/// `invalidArgument` rather than reaching the server. A value type, `Sendable`; the server
/// keeps the statement until ``PostgreSQLConnection/deallocate(_:)`` or the session's end.
public struct PostgreSQLPreparedStatement: Sendable, Hashable {
    /// The statement's name on the server (`PREPARE`'s name, `pg_prepared_statements.name`).
    public let name: String
    /// The SQL text it was prepared from.
    public let sql: String
    /// The connection it belongs to (``PostgreSQLConnection``'s identity).
    let connection: UUID
    /// The session of that connection it was prepared in.
    let session: Int
}

extension PostgreSQLConnection {
    /// Prepares `sql` (one statement, with `$1`, `$2`, … parameters) on the server (`PQprepare`)
    /// and returns the statement to run with `execute(_:parameters:)`.
    ///
    /// The server infers each parameter's type from where it stands when it prepares the
    /// statement (a column it is compared with or assigned to); where it cannot, write a cast
    /// (`$1::bigint`). `name` names the statement on the server; by default the connection
    /// makes one up (`strata_1`, `strata_2`, …). Throws `PostgreSQLError`: kind `statement` with
    /// the server's SQLSTATE for SQL it rejects (42601 a syntax error, 42P05 a name already
    /// prepared in this session), `connectionLost`, or `invalidArgument` for text holding a NUL.
    /// One round trip; blocks until the server answers.
    public func prepare(_ sql: String, name: String? = nil) throws -> PostgreSQLPreparedStatement {
        try checkUsable(sql: sql, activity: "preparing a statement")
        let statementName: String
        if let name {
            guard !name.utf8.contains(0) else {
                throw PostgreSQLError(kind: .invalidArgument, message: "the statement name holds a NUL character", activity: "preparing a statement", sql: sql)
            }
            statementName = name
        } else {
            preparedStatementCount += 1
            statementName = "strata_\(preparedStatementCount)"
        }
        let result = PQprepare(handle, statementName, sql, 0, nil)
        _ = try check(result, sql: sql, activity: "preparing a statement")
        return PostgreSQLPreparedStatement(name: statementName, sql: sql, connection: identity, session: session)
    }

    /// Runs a statement prepared on this connection with `parameters` (`PQexecPrepared`) and
    /// returns its rows and command status.
    ///
    /// Parameters are sent as `execute(_:parameters:)` with SQL text sends them, except that the
    /// types are the ones the server chose when it prepared the statement. Throws
    /// `PostgreSQLError`: `invalidArgument` for a statement of another connection or of an
    /// earlier session of this one (before `reset()`), or text holding a NUL; otherwise as
    /// `execute(_:parameters:)` with SQL text (a wrong number of parameters is the server's 08P01).
    /// One round trip; blocks until the server answers.
    @discardableResult
    public func execute(_ statement: PostgreSQLPreparedStatement, parameters: [PostgreSQLValue] = []) throws -> PostgreSQLResult {
        try checkOwnership(of: statement, activity: "executing a prepared statement")
        try checkUsable(sql: statement.sql, activity: "executing a prepared statement")
        let encoded = try EncodedParameters(parameters, sql: statement.sql)
        let result = encoded.withValuePointers { values in
            PQexecPrepared(handle, statement.name, encoded.count, values, encoded.lengths, encoded.formats, 0)
        }
        return try check(result, sql: statement.sql, activity: "executing a prepared statement")
    }

    /// Removes a prepared statement from the server (`DEALLOCATE`); running it afterwards is the
    /// server's error 26000. Throws like `execute(_:parameters:)`.
    public func deallocate(_ statement: PostgreSQLPreparedStatement) throws {
        try checkOwnership(of: statement, activity: "deallocating a prepared statement")
        try execute("DEALLOCATE \(try PostgreSQLIdentifier.quoted(statement.name))")
    }

    /// Throws `invalidArgument` unless `statement` was prepared in this connection's current session.
    private func checkOwnership(of statement: PostgreSQLPreparedStatement, activity: String) throws {
        guard statement.connection == identity else {
            throw PostgreSQLError(kind: .invalidArgument, message: "the statement \"\(statement.name)\" was prepared on another connection", activity: activity, sql: statement.sql)
        }
        guard statement.session == session else {
            throw PostgreSQLError(
                kind: .invalidArgument, message: "the statement \"\(statement.name)\" was prepared before the connection was reset (prepare it again)", activity: activity,
                sql: statement.sql)
        }
    }
}
