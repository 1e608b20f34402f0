import Foundation

/// An error from the PostgreSQL layer: what kind of failure, the server's SQLSTATE and messages
/// when the server reported it, and what Strata was doing.
///
/// It never holds a password: the server never sends one back, the URL it names is the redacted
/// one, and the connection scrubs its URL's password from every text libpq gives it (libpq repeats a
/// badly percent-encoded URL token in its message). Statement parameters are never kept, because
/// they may hold user data; the statement's SQL text is. A value type, `Sendable`.
public struct PostgreSQLError: Error, Sendable {
    /// What failed, independent of the SQLSTATE.
    public enum Kind: String, Sendable {
        /// The URL is not a `postgresql://` URL Strata can use.
        case invalidURL
        /// No connection: the server refused it, could not be reached, or rejected the role,
        /// password or database (the SQLSTATE says which, when the server answered).
        case connectionFailed
        /// No connection within the connect timeout (`PostgreSQLConfiguration.connectTimeout`).
        case connectTimeout
        /// The connection broke (the server ended it, or the network failed) during a call; the
        /// connection is unusable until `reset()`.
        case connectionLost
        /// The server rejected a statement: see ``sqlState`` and ``message``.
        case statement
        /// A transaction failed earlier, so its `COMMIT` rolled it back instead (SQLSTATE 25P02).
        case transactionAborted
        /// A value libpq cannot carry (a NUL character in text), a bad identifier, or a misuse
        /// such as opening a transaction inside another.
        case invalidArgument
        /// A column's value is not of the type asked for, or there is no such column.
        case conversion
        /// No pooled connection became free within the pool's checkout timeout.
        case poolTimeout
        /// The pool was closed.
        case poolClosed
    }

    /// What failed.
    public let kind: Kind
    /// The five-character SQLSTATE code (`PG_DIAG_SQLSTATE`, e.g. `23505`), when the server sent one.
    public let sqlState: String?
    /// The server's primary message (`PG_DIAG_MESSAGE_PRIMARY`), or libpq's or Strata's message
    /// when the server sent none.
    public let message: String
    /// The server's detail (`PG_DIAG_MESSAGE_DETAIL`), if any.
    public let detail: String?
    /// The server's hint (`PG_DIAG_MESSAGE_HINT`), if any.
    public let hint: String?
    /// The constraint a violation names (`PG_DIAG_CONSTRAINT_NAME`), if any.
    public let constraintName: String?
    /// What Strata was doing: "connecting to postgresql://strata:***@…", "executing a statement", ….
    public let activity: String
    /// The SQL text of the statement involved, when there was one (never its parameters).
    public let sql: String?

    /// Creates an error from its parts. Pass only redacted URLs and texts without passwords.
    public init(
        kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil, constraintName: String? = nil,
        activity: String, sql: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
        self.constraintName = constraintName
        self.activity = activity
        self.sql = sql
    }

    /// SQLSTATE 23505: a unique constraint or index refused a duplicate.
    public var isUniqueViolation: Bool { sqlState == SQLState.uniqueViolation }
    /// SQLSTATE 40001 or 40P01: a serialization failure or a deadlock; retrying the whole
    /// transaction may succeed.
    public var isTransactionRetryable: Bool { sqlState == SQLState.serializationFailure || sqlState == SQLState.deadlockDetected }
    /// Whether the connection is unusable after this error: it failed to open or broke (kinds
    /// `connectionFailed`, `connectTimeout`, `connectionLost`).
    public var isConnectionError: Bool { kind == .connectionFailed || kind == .connectTimeout || kind == .connectionLost }
}

extension PostgreSQLError {
    /// SQLSTATE codes Strata names (PostgreSQL's documentation, Appendix A, "PostgreSQL Error Codes").
    public enum SQLState {
        /// 23505 unique_violation.
        public static let uniqueViolation = "23505"
        /// 23503 foreign_key_violation.
        public static let foreignKeyViolation = "23503"
        /// 23502 not_null_violation.
        public static let notNullViolation = "23502"
        /// 40001 serialization_failure.
        public static let serializationFailure = "40001"
        /// 40P01 deadlock_detected.
        public static let deadlockDetected = "40P01"
        /// 42601 syntax_error.
        public static let syntaxError = "42601"
        /// 42P01 undefined_table.
        public static let undefinedTable = "42P01"
        /// 28P01 invalid_password.
        public static let invalidPassword = "28P01"
        /// 28000 invalid_authorization_specification (no such role, or refused by pg_hba.conf).
        public static let invalidAuthorization = "28000"
        /// 3D000 invalid_catalog_name (no such database).
        public static let invalidCatalogName = "3D000"
        /// 57P01 admin_shutdown (the server ended the session: shutdown or `pg_terminate_backend`).
        public static let adminShutdown = "57P01"
        /// 25P02 in_failed_sql_transaction.
        public static let inFailedTransaction = "25P02"
        /// 26000 invalid_sql_statement_name (no prepared statement of that name in the session).
        public static let invalidStatementName = "26000"
        /// 0A000 feature_not_supported (also what a prepared statement whose table changed gets:
        /// "cached plan must not change result type").
        public static let featureNotSupported = "0A000"

        /// The condition name of a code in this list, as the documentation spells it.
        public static func name(of code: String) -> String? {
            switch code {
            case uniqueViolation: return "unique_violation"
            case foreignKeyViolation: return "foreign_key_violation"
            case notNullViolation: return "not_null_violation"
            case serializationFailure: return "serialization_failure"
            case deadlockDetected: return "deadlock_detected"
            case syntaxError: return "syntax_error"
            case undefinedTable: return "undefined_table"
            case invalidPassword: return "invalid_password"
            case invalidAuthorization: return "invalid_authorization_specification"
            case invalidCatalogName: return "invalid_catalog_name"
            case adminShutdown: return "admin_shutdown"
            case inFailedTransaction: return "in_failed_sql_transaction"
            case invalidStatementName: return "invalid_sql_statement_name"
            case featureNotSupported: return "feature_not_supported"
            default: return nil
            }
        }
    }
}

extension PostgreSQLError: CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// One line: the SQLSTATE (with its name when known), the message, detail, hint, the activity
    /// and the SQL.
    public var description: String {
        var text = "PostgreSQL error"
        if let sqlState {
            text += " \(sqlState)"
            if let name = SQLState.name(of: sqlState) { text += " (\(name))" }
        } else {
            text += " (\(kind.rawValue))"
        }
        text += ": \(message)"
        if let detail { text += " — detail: \(detail)" }
        if let hint { text += " — hint: \(hint)" }
        text += " — while \(activity)"
        if let sql { text += " — SQL: \(sql)" }
        return text
    }

    /// The same as `description`.
    public var debugDescription: String { description }
    /// The same as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
