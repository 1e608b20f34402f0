import CLibPQ
import Foundation

/// One connection to a PostgreSQL server, through libpq.
///
/// Not thread-safe, like libpq's `PGconn` ("one thread at a time", libpq's "Behavior in Threaded
/// Programs"): whoever owns it uses it from one thread at a time. `PostgreSQLConnectionPool` does
/// that by handing each connection to one caller at a time. Every call blocks its thread until
/// the server answers. Opening and `reset()` fail within the configuration's connect timeout; a
/// statement waits for the server as long as the server takes (set `statement_timeout` in the URL's
/// `options` to bound it).
///
/// The connection reads and writes UTF-8 (`client_encoding` UTF8), and drops the server's
/// notices and warnings (libpq would print them to standard error).
public final class PostgreSQLConnection {
    /// libpq's `PGconn*`, owned: finished (closed) in `deinit`.
    let handle: OpaquePointer
    /// Where the connection goes; its `description` is the URL without the password.
    public let configuration: PostgreSQLConfiguration
    /// Tells this connection apart from every other, for the prepared statements it made.
    let identity = UUID()
    /// The server session the connection is in: `reset()` starts a new one, which has none of the
    /// prepared statements of the one before.
    var session = 0
    /// How many statements were prepared with a generated name (the next one's number).
    var preparedStatementCount = 0
    /// The statements `executeCached(_:parameters:)` prepared.
    var statementCache = PostgreSQLStatementCache(session: 0)

    /// Opens a connection to the server a `postgresql://` URL names, failing within the URL's
    /// `connect_timeout` or else `PostgreSQLConfiguration.standardConnectTimeout` (5 s).
    ///
    /// Throws `PostgreSQLError` with kind `invalidURL`, `connectionFailed` (with the server's
    /// SQLSTATE when it answered: 28P01 for a wrong password, 3D000 for a missing database) or
    /// `connectTimeout`. Blocks the calling thread; callable from any thread.
    public convenience init(url: String) throws {
        try self.init(configuration: PostgreSQLConfiguration(url: url))
    }

    /// Opens a connection with `configuration` (see `init(url:)`).
    public init(configuration: PostgreSQLConfiguration) throws {
        self.handle = try Self.open(configuration)
        self.configuration = configuration
    }

    deinit { PostgreSQLExitGate.pass { PQfinish(handle) } }

    /// Whether libpq considers the connection open (`PQstatus` is `CONNECTION_OK`). A server that
    /// closed an idle connection is only noticed when the connection next reads: use
    /// `checkConnection()` to find out without running a statement.
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Reads whatever the server sent without waiting (`PQconsumeInput`), so a connection the
    /// server has closed or ended (shutdown, `pg_terminate_backend`, a dropped network link that
    /// the kernel reported) is seen as broken, and returns `isConnected`. Notifications read on
    /// the way stay queued for `notifications(timeout:)`. Does not block.
    @discardableResult
    public func checkConnection() -> Bool {
        // A closed session leaves the server's last message (FATAL 57P01) and then end of file in
        // the socket: libpq notices the end only on a read that returns nothing, so read while
        // the socket stays readable (a few rounds: an idle healthy connection has nothing to read).
        var rounds = 0
        while isConnected && rounds < 8 && PostgreSQLSocketWait.isReadable(PQsocket(handle)) {
            guard PQconsumeInput(handle) == 1 else { break }
            rounds += 1
        }
        return isConnected
    }

    /// The process ID of the server process serving this connection (`PQbackendPID`), as
    /// `pg_stat_activity.pid` and `pg_terminate_backend` know it; 0 when not connected.
    public var serverProcessID: Int32 { PQbackendPID(handle) }

    /// The server's version as an integer (`PQserverVersion`: 150018 for 15.18); 0 when not connected.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// Where the connection stands with respect to transactions (`PQtransactionStatus`).
    public var transactionStatus: PostgreSQLTransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .inFailedTransaction
        default: return .unknown
        }
    }

    /// Runs one SQL statement with `$1`, `$2`, … parameters (`PQexecParams`: one statement, never
    /// several, and values never pasted into the SQL) and returns its rows and command status.
    ///
    /// Throws `PostgreSQLError`: kind `statement` with the server's SQLSTATE, message, detail and
    /// hint when the server rejects it; `connectionLost` when the connection broke (then
    /// `isConnected` is false and `reset()` reconnects); `invalidArgument` for text holding a NUL.
    /// Blocks until the server answers.
    @discardableResult
    public func execute(_ sql: String, parameters: [PostgreSQLValue] = []) throws -> PostgreSQLResult {
        try checkUsable(sql: sql)
        let encoded = try EncodedParameters(parameters, sql: sql)
        let result = encoded.withValuePointers { values in
            PQexecParams(handle, sql, encoded.count, encoded.types, values, encoded.lengths, encoded.formats, 0)
        }
        return try check(result, sql: sql, activity: "executing a statement")
    }

    /// Runs SQL text that may hold several statements separated by semicolons (`PQexec`), such as
    /// a schema script, with no parameters. Unless the text has its own `BEGIN`/`COMMIT`, the
    /// server runs it as one transaction: a failing statement undoes the ones before it. Returns
    /// the result of the last statement. Throws like `execute(_:parameters:)`.
    @discardableResult
    public func executeScript(_ sql: String) throws -> PostgreSQLResult {
        try checkUsable(sql: sql)
        return try check(PQexec(handle, sql), sql: sql, activity: "executing a script")
    }

    /// Refuses SQL that libpq would cut short (a NUL) and calls on a connection known to be broken.
    func checkUsable(sql: String, activity: String = "executing a statement") throws {
        guard !sql.utf8.contains(0) else {
            throw PostgreSQLError(kind: .invalidArgument, message: "the SQL text holds a NUL character", activity: activity)
        }
        guard isConnected else {
            throw PostgreSQLError(
                kind: .connectionLost, message: "the connection is broken (call reset() to reconnect)", activity: "\(activity) on \(configuration)", sql: sql)
        }
    }

    /// Turns what `PQexec`/`PQexecParams`/`PQprepare`/`PQexecPrepared` returned into a result, or throws the error it carries.
    func check(_ result: OpaquePointer?, sql: String, activity: String) throws -> PostgreSQLResult {
        guard let result else { throw connectionError(activity: activity, sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgreSQLResult(handle: result)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            PQclear(result)
            abandonCopy()
            throw PostgreSQLError(kind: .invalidArgument, message: "COPY FROM STDIN / TO STDOUT is not supported here", activity: activity, sql: sql)
        default:
            defer { PQclear(result) }
            throw error(from: result, sql: sql, activity: activity)
        }
    }

    /// Leaves the COPY state a `COPY … STDIN/STDOUT` statement put the connection in.
    private func abandonCopy() {
        _ = PQputCopyEnd(handle, "COPY is not supported by Strata")
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(handle, &buffer, 0) > 0 {
            PQfreemem(buffer)
            buffer = nil
        }
        while let pending = PQgetResult(handle) { PQclear(pending) }
    }

    /// The error a failed result carries: its SQLSTATE and messages; kind `connectionLost` when
    /// the connection broke with it.
    func error(from result: OpaquePointer, sql: String?, activity: String) -> PostgreSQLError {
        func field(_ code: Int32) -> String? {
            PQresultErrorField(result, code).map { configuration.scrub(String(cString: $0)) }
        }
        let primary = field(strata_pg_diag_message_primary)
        let fallback = PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
        let message = primary ?? PostgreSQLServerMessage(configuration.scrub(fallback)).message
        return PostgreSQLError(
            kind: isConnected ? .statement : .connectionLost, sqlState: field(strata_pg_diag_sqlstate),
            message: message.isEmpty ? "the statement failed" : message, detail: field(strata_pg_diag_message_detail),
            hint: field(strata_pg_diag_message_hint), constraintName: field(strata_pg_diag_constraint_name), activity: activity, sql: sql)
    }

    /// The error libpq describes in `PQerrorMessage` (a failure with no result: lost connection,
    /// out of memory).
    func connectionError(activity: String, sql: String? = nil) -> PostgreSQLError {
        let text = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
        let message = PostgreSQLServerMessage(configuration.scrub(text))
        return PostgreSQLError(
            kind: isConnected ? .statement : .connectionLost, sqlState: message.sqlState,
            message: message.message.isEmpty ? "libpq reported a failure without a message" : message.message, detail: message.detail,
            hint: message.hint, activity: "\(activity) on \(configuration)", sql: sql)
    }
}

/// Where a connection stands with respect to transactions (libpq's `PGTransactionStatusType`).
public enum PostgreSQLTransactionStatus: Sendable {
    /// No transaction open.
    case idle
    /// A statement is running.
    case active
    /// Inside a transaction block that has not failed.
    case inTransaction
    /// Inside a transaction block that failed: every statement until `ROLLBACK` fails with 25P02.
    case inFailedTransaction
    /// The connection is broken.
    case unknown
}
