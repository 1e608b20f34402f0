import CSQLite
import Foundation

/// The raw side of each pair: hand-written sqlite3 calls, with the same pragmas as Strata's
/// store (WAL, synchronous=NORMAL). Failures throw; benchmark set-up is not user input.
final class RawDatabase {
    let handle: OpaquePointer

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            throw Failure(message: "cannot open \(path)")
        }
        handle = db
        try execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw Failure(message: "\(text) in \(sql)")
        }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(message: String(cString: sqlite3_errmsg(handle)) + " in " + sql)
        }
        return statement
    }

    /// Runs a query returning one integer.
    func scalar(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw Failure(message: "no row for \(sql)") }
        return sqlite3_column_int64(statement, 0)
    }
}

/// A row of the benchmark table, as the raw side reads it.
struct RawItem {
    var key: Int64
    var name: String
    var number: Int64
    var score: Double
    var flag: Bool
    var created: Double
}

extension OpaquePointer {
    /// Reads column `index` as text.
    func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(self, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(self, index))), as: UTF8.self)
    }
}

func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) {
    sqlite3_bind_text(statement, index, text, Int32(text.utf8.count), strata_sqlite_transient())
}

extension RawItem {
    /// Reads the row `SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED …` the statement is on.
    init(row: OpaquePointer) {
        self.init(
            key: sqlite3_column_int64(row, 0), name: row.text(1), number: sqlite3_column_int64(row, 2), score: sqlite3_column_double(row, 3),
            flag: sqlite3_column_int64(row, 4) != 0, created: sqlite3_column_double(row, 5))
    }
}

/// A prepared statement kept for a whole benchmark (the raw side's statement cache); finalized
/// when the benchmark's context lets it go.
final class CachedStatement {
    let database: RawDatabase
    let handle: OpaquePointer

    init(_ database: RawDatabase, _ sql: String) throws {
        self.database = database
        handle = try database.prepare(sql)
    }

    deinit { sqlite3_finalize(handle) }
}
