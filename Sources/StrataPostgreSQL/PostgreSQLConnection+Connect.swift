import CLibPQ
import Foundation

extension PostgreSQLConnection {
    /// Starts a connection with `PQconnectStartParams` and drives it to the end with
    /// `PQconnectPoll` and `poll(2)`, so it fails at `configuration.connectTimeout` at the latest:
    /// libpq applies `connect_timeout` only in its blocking calls, so Strata keeps its own
    /// deadline. Returns the open `PGconn*`; finishes it and throws on failure.
    static func open(_ configuration: PostgreSQLConfiguration) throws -> OpaquePointer {
        _ = openSSLStarted
        let activity = "connecting to \(configuration)"
        var parameters: [(String, String)] = [("dbname", configuration.url)]
        if !configuration.urlHasConnectTimeout {
            let (seconds, attoseconds) = configuration.connectTimeout.components
            parameters.append(("connect_timeout", String(max(2, seconds + (attoseconds > 0 ? 1 : 0)))))
        }
        // Later keywords win over the URL's: Strata reads and writes UTF-8.
        parameters.append(("client_encoding", "UTF8"))
        parameters.append(("fallback_application_name", "strata"))
        let deadline = ContinuousClock.now + configuration.connectTimeout
        let started = withCStrings(parameters.map(\.0)) { keywords in
            withCStrings(parameters.map(\.1)) { values in PostgreSQLExitGate.pass { PQconnectStartParams(keywords, values, 1) } }
        }
        guard let connection = started else {
            throw PostgreSQLError(kind: .connectionFailed, message: "libpq could not allocate a connection", activity: activity)
        }
        // Verbose messages carry the SQLSTATE of a refused connection ("FATAL:  28P01: …"): libpq
        // has no result to read it from before the connection is open.
        PQsetErrorVerbosity(connection, PQERRORS_VERBOSE)
        PQsetNoticeReceiver(connection, { _, _ in }, nil)
        do {
            guard PQstatus(connection) != CONNECTION_BAD else { throw failure(connection, configuration: configuration, activity: activity) }
            try completeConnection(connection, configuration: configuration, deadline: deadline, activity: activity) { PQconnectPoll($0) }
        } catch {
            PostgreSQLExitGate.pass { PQfinish(connection) }
            throw error
        }
        return connection
    }

    /// OpenSSL, which libpq uses for SCRAM authentication and TLS, started before the first
    /// connection without its exit handler (`OPENSSL_INIT_NO_ATEXIT`). By default OpenSSL frees
    /// its global state in an `atexit` handler, so a process that exits while another thread is
    /// inside libpq (a store's change listener reconnecting after a server restart, a fetch on
    /// a private queue, a statement over TLS) could crash in that thread instead of exiting;
    /// that handler would run before `PostgreSQLExitGate`'s, which is registered earlier. The
    /// operating system reclaims the memory at exit anyway. Has no effect when the process
    /// started OpenSSL before its first PostgreSQL connection (docs/postgresql.md, "Exiting the
    /// process").
    private static let openSSLStarted: Bool = strata_openssl_start_without_exit_cleanup() == 1

    /// Closes the connection and opens it again with the same parameters (`PQresetStart` and
    /// `PQresetPoll`), within the connect timeout. Any open transaction, `LISTEN`, session
    /// setting and prepared statement is gone afterwards; queued notifications are kept. Throws `PostgreSQLError` with
    /// kind `connectionFailed` or `connectTimeout` (the connection then stays broken and may be
    /// reset again). Blocks the calling thread.
    public func reset() throws {
        let activity = "resetting the connection to \(configuration)"
        let deadline = ContinuousClock.now + configuration.connectTimeout
        // The old session ends here, and its prepared statements with it.
        session &+= 1
        guard PostgreSQLExitGate.pass({ PQresetStart(handle) }) == 1 else { throw Self.failure(handle, configuration: configuration, activity: activity) }
        try Self.completeConnection(handle, configuration: configuration, deadline: deadline, activity: activity) { PQresetPoll($0) }
    }

    /// The polling loop of libpq's "Connecting without blocking": wait for the socket as the last
    /// poll asked (writable first), poll again, until OK, FAILED or the deadline.
    private static func completeConnection(
        _ connection: OpaquePointer, configuration: PostgreSQLConfiguration, deadline: ContinuousClock.Instant, activity: String,
        poll: (OpaquePointer) -> PostgresPollingStatusType
    ) throws {
        var status = PGRES_POLLING_WRITING
        while true {
            switch status {
            case PGRES_POLLING_OK:
                return
            case PGRES_POLLING_FAILED:
                throw failure(connection, configuration: configuration, activity: activity)
            default:
                // The socket may change between polls (another host or address, SSL retry).
                let direction: PostgreSQLSocketWait.Direction = status == PGRES_POLLING_READING ? .read : .write
                guard PostgreSQLSocketWait.wait(for: direction, on: PQsocket(connection), until: deadline) else {
                    throw PostgreSQLError(
                        kind: .connectTimeout, message: "no connection within the connect timeout of \(configuration.connectTimeout)", activity: activity)
                }
                status = PostgreSQLExitGate.pass { poll(connection) }
            }
        }
    }

    /// The error of a connection that could not be opened, from libpq's (verbose) message.
    private static func failure(_ connection: OpaquePointer, configuration: PostgreSQLConfiguration, activity: String) -> PostgreSQLError {
        let text = PQerrorMessage(connection).map { String(cString: $0) } ?? ""
        let message = PostgreSQLServerMessage(configuration.scrub(text))
        return PostgreSQLError(
            kind: .connectionFailed, sqlState: message.sqlState, message: message.message.isEmpty ? "the connection failed" : message.message,
            detail: message.detail, hint: message.hint, activity: activity)
    }
}

/// Calls `body` with a NULL-terminated array of C strings copied from `strings`, freed afterwards.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> T) -> T {
    let copies: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
}
