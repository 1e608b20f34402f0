import CSQLite
import Foundation

/// One open SQLite database connection.
///
/// A connection is not thread-safe by itself: it is opened in SQLite's multi-thread mode
/// (`SQLITE_OPEN_NOMUTEX`), so its owner must make sure only one thread uses it at a time.
/// Strata's connection pool does that by handing each connection to one user at a time.
public final class SQLiteConnection {
    /// The raw `sqlite3*` handle.
    public let handle: OpaquePointer
    /// The file path or URI the connection was opened with.
    public let path: String
    /// The options the connection was opened with.
    public let configuration: SQLiteConfiguration

    var statementCache: SQLiteStatementCache
    var traceBox: Unmanaged<TraceBox>?
    private var registrations: [AnyObject] = []

    /// Opens (and, unless read-only, creates) the database at `path` and applies the configuration's
    /// pragmas. Throws `SQLiteError` naming the file if it cannot be opened or is not a database.
    public init(path: String, configuration: SQLiteConfiguration = SQLiteConfiguration()) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= configuration.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, configuration.vfsName)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            let extended = db.map { sqlite3_extended_errcode($0) } ?? rc
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(extendedCode: extended, message: message, path: path)
        }
        self.handle = db
        self.path = path
        self.configuration = configuration
        self.statementCache = SQLiteStatementCache(capacity: configuration.statementCacheCapacity)
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Int32(clamping: configuration.busyTimeoutMilliseconds))
        do {
            try applyPragmas()
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        traceBox?.release()
    }

    private func applyPragmas() throws {
        // Reading the schema first makes "file is not a database" surface here, with the path,
        // instead of in the middle of the first query.
        try execute("PRAGMA schema_version")
        if !configuration.readOnly {
            switch configuration.journalMode {
            case .wal: try execute("PRAGMA journal_mode=WAL")
            case .rollback: try execute("PRAGMA journal_mode=DELETE")
            case .memory: try execute("PRAGMA journal_mode=MEMORY")
            }
        }
        try execute("PRAGMA synchronous=\(configuration.synchronous.rawValue)")
        try execute("PRAGMA foreign_keys=\(configuration.foreignKeys ? "ON" : "OFF")")
    }

    /// The message of the most recent failed call on this connection.
    public var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Builds an error from the connection's current error state.
    public func makeError(_ code: Int32, sql: String? = nil, arguments: [SQLiteValue]? = nil) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        let useful = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return SQLiteError(
            extendedCode: useful, message: lastErrorMessage, sql: sql,
            arguments: configuration.showsArgumentsInErrors ? arguments : nil, path: path)
    }

    /// Runs one or more SQL statements that take no arguments (schema changes, pragmas).
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, path: path)
        }
        // No trace event here: SQLite's trace hook reports each statement sqlite3_exec runs.
    }

    /// Prepares a statement that is not cached; it is finalized when released.
    public func makeStatement(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Returns a prepared statement for `sql` from the connection's cache, preparing it on first
    /// use. The statement comes back reset with its bindings cleared. Statements still in use
    /// (stepping) are never handed out twice: a fresh one is prepared instead.
    public func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statementCache.statement(for: sql), !statement.isBusy {
            statement.clearBindings()
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statementCache.insert(statement, for: sql)
        return statement
    }

    /// The rowid of the most recent successful insert on this connection.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    /// Whether SQLite opened the database read-only: asked for, or because the file or its
    /// media cannot be written (SQLite then falls back to read-only without an error).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Runs `body` inside a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ kind: SQLiteTransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute(kind.beginStatement)
        do {
            let result = try body()
            try execute("COMMIT TRANSACTION")
            return result
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
    }

    /// Rolls back the open transaction, if any; errors are ignored because SQLite may already
    /// have rolled back on its own (after `SQLITE_FULL` or an I/O error).
    public func rollbackIgnoringErrors() {
        if isInTransaction {
            sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
        }
    }

    /// Interrupts a long-running query on this connection (safe to call from another thread).
    public func interrupt() { sqlite3_interrupt(handle) }

    /// Drops every cached prepared statement.
    public func clearStatementCache() { statementCache.removeAll() }

    func retain(_ registration: AnyObject) { registrations.append(registration) }
}

/// How a transaction takes its locks.
public enum SQLiteTransactionKind: String, Sendable {
    /// Takes no lock until the first read or write. Fine for read-only transactions only: in WAL
    /// mode a deferred transaction that reads then writes can fail with `SQLITE_BUSY` at once.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, waiting up to the busy timeout. Used for every write.
    case immediate = "IMMEDIATE"
    /// Takes an exclusive lock at once.
    case exclusive = "EXCLUSIVE"

    /// The statement that begins a transaction of this kind (`BEGIN IMMEDIATE TRANSACTION`).
    public var beginStatement: String {
        switch self {
        case .deferred: return "BEGIN DEFERRED TRANSACTION"
        case .immediate: return "BEGIN IMMEDIATE TRANSACTION"
        case .exclusive: return "BEGIN EXCLUSIVE TRANSACTION"
        }
    }
}
