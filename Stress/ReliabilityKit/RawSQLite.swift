import CSQLite
import Foundation

/// A bare SQLite connection for the checker: no pragmas, no journal-mode change, nothing but
/// the queries asked for, so what it reads is the file as SQLite itself sees it.
public final class RawSQLite {
    /// One column value.
    public enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)

        /// The value as an integer (0 for anything else).
        public var int64: Int64 {
            if case .integer(let value) = self { return value }
            return 0
        }

        /// The value as text, if it is text.
        public var text: String? {
            if case .text(let value) = self { return value }
            return nil
        }

        /// The value as bytes, if it is a blob (an empty blob for NULL).
        public var data: Data {
            if case .blob(let value) = self { return value }
            return Data()
        }

        /// Whether the value is NULL.
        public var isNull: Bool { self == .null }
    }

    /// An error from SQLite, with its extended code.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The extended result code.
        public let code: Int32
        /// SQLite's message.
        public let message: String
        public var description: String { "SQLite \(code): \(message)" }
    }

    private let handle: OpaquePointer

    /// Opens `path` read-only or read-write (creating it only when `create` is set), with a
    /// busy timeout.
    public init(path: String, readWrite: Bool = false, create: Bool = false, vfs: String? = nil, busyTimeoutMilliseconds: Int32 = 5_000) throws {
        var db: OpaquePointer?
        var flags = (readWrite ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_URI
        if create && readWrite { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw Failure(code: rc, message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs SQL statements that return nothing.
    public func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// Runs one query and returns its rows.
    public func rows(_ sql: String) throws -> [[Value]] {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)) + " — " + sql)
        }
        defer { sqlite3_finalize(statement) }
        var result: [[Value]] = []
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw Failure(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)) + " — " + sql)
            }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    let text = sqlite3_column_text(statement, column).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
                    row.append(.text(text))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if count > 0, let bytes = sqlite3_column_blob(statement, column) {
                        row.append(.blob(Data(bytes: bytes, count: count)))
                    } else {
                        row.append(.blob(Data()))
                    }
                default: row.append(.null)
                }
            }
            result.append(row)
        }
        return result
    }
}
