import CSQLite
import Foundation

/// A prepared statement. Finalized when released.
///
/// Like its connection, a statement may be used by one thread at a time.
public final class SQLiteStatement {
    /// The raw `sqlite3_stmt*` handle.
    public let handle: OpaquePointer
    /// The SQL text the statement was prepared from.
    public let sql: String
    // The db handle stays valid while this statement lives: sqlite3_close_v2 waits for the
    // last statement to be finalized.
    private let database: OpaquePointer
    private let path: String
    private let recordsArguments: Bool
    private var boundArguments: [SQLiteValue] = []

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
        guard rc == SQLITE_OK, let statement else {
            throw connection.makeError(rc, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.database = connection.handle
        self.path = connection.path
        self.recordsArguments = connection.configuration.showsArgumentsInErrors
    }

    deinit { sqlite3_finalize(handle) }

    /// Whether the statement has started stepping and was not reset.
    public var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Number of `?` parameters.
    public var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Resets the statement so it can run again; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// Resets the statement and clears its bindings.
    public func clearBindings() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        if recordsArguments { boundArguments.removeAll(keepingCapacity: true) }
    }

    private func error(_ rc: Int32) -> SQLiteError {
        let extended = sqlite3_extended_errcode(database)
        return SQLiteError(
            extendedCode: (extended & 0xFF) == (rc & 0xFF) ? extended : rc,
            message: String(cString: sqlite3_errmsg(database)), sql: sql,
            arguments: recordsArguments ? boundArguments : nil, path: path)
    }

    // MARK: Binding (indexes start at 1, as in SQLite)

    /// Binds `values` to parameters 1…n.
    public func bind(_ values: [SQLiteValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the parameter at `index` (1-based).
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v): rc = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            // Pass the byte length: text may contain NUL characters.
            rc = sqlite3_bind_text(handle, index, v, Int32(v.utf8.count), strata_sqlite_transient())
        case .blob(let v):
            rc = v.withUnsafeBytes { raw in
                // A zero-length blob must not bind as NULL: give SQLite a valid pointer.
                if raw.isEmpty { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), strata_sqlite_transient())
            }
        }
        if recordsArguments {
            let slot = Int(index) - 1
            while boundArguments.count <= slot { boundArguments.append(.null) }
            boundArguments[slot] = value
        }
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Binds an integer without going through `SQLiteValue`.
    @inline(__always) public func bind(int64 value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
        if recordsArguments { record(.integer(value), at: index) }
    }

    private func record(_ value: SQLiteValue, at index: Int32) {
        let slot = Int(index) - 1
        while boundArguments.count <= slot { boundArguments.append(.null) }
        boundArguments[slot] = value
    }

    // MARK: Stepping

    /// Advances to the next row. Returns `true` when a row is available, `false` when done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let failure = error(rc)
            sqlite3_reset(handle)
            throw failure
        }
    }

    /// Runs the statement to completion with `arguments`, then resets it.
    public func execute(_ arguments: [SQLiteValue] = []) throws {
        defer { sqlite3_reset(handle) }
        if !arguments.isEmpty { try bind(arguments) }
        while try step() {}
    }

    /// Runs the statement with `arguments` and calls `body` for each row, then resets it.
    public func forEachRow(_ arguments: [SQLiteValue] = [], _ body: (SQLiteStatement) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        if !arguments.isEmpty { try bind(arguments) }
        while try step() { try body(self) }
    }

    // MARK: Columns (indexes start at 0, as in SQLite)

    /// Number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of a result column.
    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// Whether the column of the current row is `NULL`.
    @inline(__always) public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column as an integer (SQLite converts other storage classes).
    @inlinable @inline(__always) public func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as an integer, or `nil` for `NULL`, in one read of the column (see
    /// ``value(at:)``; SQLite converts other storage classes). Call it on the thread using the
    /// statement, while the statement is on a row (after ``step()`` returned `true`).
    @inlinable @inline(__always) public func optionalInt64(at index: Int32) -> Int64? {
        guard let value = nonNullValue(at: index) else { return nil }
        return sqlite3_value_int64(value)
    }

    /// The column as a double (SQLite converts other storage classes).
    @inline(__always) public func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// The column as text, or `nil` for `NULL` (SQLite converts other storage classes), in one
    /// read of the column (see ``value(at:)``). Call it on the thread using the statement,
    /// while the statement is on a row.
    @inline(__always) public func text(at index: Int32) -> String? {
        guard let value = nonNullValue(at: index) else { return nil }
        return Self.string(of: value)
    }

    /// The column as bytes, or `nil` for `NULL` (SQLite converts other storage classes), in
    /// one read of the column (see ``value(at:)``). Call it on the thread using the statement,
    /// while the statement is on a row.
    @inline(__always) public func blob(at index: Int32) -> Data? {
        guard let value = nonNullValue(at: index) else { return nil }
        return Self.data(of: value)
    }

    /// The column's value (SQLite's unprotected value, see ``value(at:)``), or `nil` for `NULL`:
    /// the one read of the column that the optional typed reads start from.
    @usableFromInline @inline(__always) func nonNullValue(at index: Int32) -> OpaquePointer? {
        guard let value = sqlite3_column_value(handle, index), sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        return value
    }

    /// The text of a column's value, as UTF-8 (invalid bytes repaired to U+FFFD); empty if
    /// SQLite cannot give it (out of memory).
    @usableFromInline @inline(__always) static func string(of value: OpaquePointer) -> String {
        guard let pointer = sqlite3_value_text(value) else { return "" }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The bytes of a column's value. The pointer is taken first, then the length (SQLite's
    /// advice); a zero-length blob has no pointer.
    @usableFromInline @inline(__always) static func data(of value: OpaquePointer) -> Data {
        guard let pointer = sqlite3_value_blob(value) else { return Data() }
        return Data(bytes: pointer, count: Int(sqlite3_value_bytes(value)))
    }

    /// The column in its own storage class.
    ///
    /// Reads the column once through `sqlite3_column_value` and its storage class and payload
    /// from that value. Each `sqlite3_column_*` call looks the column up and checks the
    /// statement's error state again; the type, then the payload (then its length, for text
    /// and blobs) made two to four such calls a column, the column reads of a fetch twice
    /// what raw `sqlite3` prepared statements spend (docs/benchmarks.md, "What each change
    /// bought"). The value is SQLite's own unprotected column value, read here on the thread
    /// that owns the connection (it is opened `SQLITE_OPEN_NOMUTEX`), before the next step:
    /// the same conversions as the `sqlite3_column_*` calls, which read it the same way.
    /// Inlinable, so that a caller converting the value to its own type (the store's row
    /// decoder) compiles the two switches into one, without the call in between.
    @inlinable @inline(__always) public func value(at index: Int32) -> SQLiteValue {
        guard let value = sqlite3_column_value(handle, index) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(Self.string(of: value))
        case SQLITE_BLOB: return .blob(Self.data(of: value))
        default: return .null
        }
    }

    /// The SQL with its current bindings pasted in (for debug logs only).
    public var expandedSQL: String {
        guard let pointer = sqlite3_expanded_sql(handle) else { return sql }
        defer { sqlite3_free(pointer) }
        return String(cString: pointer)
    }
}
