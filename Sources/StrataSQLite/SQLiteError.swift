import CSQLite

/// An error reported by SQLite: its result code, message, and the statement involved.
///
/// Statement arguments are kept out of `description` unless the caller asked for them
/// (`SQLiteConnection.Configuration.showsArgumentsInErrors`), because they may hold user data.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
    public var code: Int32 { extendedCode & 0xFF }
    /// The extended result code (`SQLITE_IOERR_WRITE`, …).
    public let extendedCode: Int32
    /// SQLite's message for the error.
    public let message: String
    /// The SQL text of the statement that failed, when there was one.
    public let sql: String?
    /// The bound arguments, present only when the connection was configured to show them.
    public let arguments: [SQLiteValue]?
    /// The database file the connection was opened on.
    public let path: String?

    /// Creates an error from its parts.
    public init(extendedCode: Int32, message: String, sql: String? = nil, arguments: [SQLiteValue]? = nil, path: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.arguments = arguments
        self.path = path
    }

    /// `SQLITE_BUSY` or `SQLITE_LOCKED`: another connection holds a lock we need.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// `SQLITE_CONSTRAINT` of any kind.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// The file is not a database, or is damaged.
    public var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// The name of the primary code, as in SQLite's documentation.
    public var codeName: String {
        switch code {
        case SQLITE_ERROR: return "SQLITE_ERROR"
        case SQLITE_INTERNAL: return "SQLITE_INTERNAL"
        case SQLITE_PERM: return "SQLITE_PERM"
        case SQLITE_ABORT: return "SQLITE_ABORT"
        case SQLITE_BUSY: return "SQLITE_BUSY"
        case SQLITE_LOCKED: return "SQLITE_LOCKED"
        case SQLITE_NOMEM: return "SQLITE_NOMEM"
        case SQLITE_READONLY: return "SQLITE_READONLY"
        case SQLITE_INTERRUPT: return "SQLITE_INTERRUPT"
        case SQLITE_IOERR: return "SQLITE_IOERR"
        case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
        case SQLITE_NOTFOUND: return "SQLITE_NOTFOUND"
        case SQLITE_FULL: return "SQLITE_FULL"
        case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
        case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL"
        case SQLITE_SCHEMA: return "SQLITE_SCHEMA"
        case SQLITE_TOOBIG: return "SQLITE_TOOBIG"
        case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: return "SQLITE_MISMATCH"
        case SQLITE_MISUSE: return "SQLITE_MISUSE"
        case SQLITE_RANGE: return "SQLITE_RANGE"
        case SQLITE_NOTADB: return "SQLITE_NOTADB"
        default: return "SQLite error \(code)"
        }
    }

    public var description: String {
        var text = "\(codeName) (\(extendedCode)): \(message)"
        if let sql { text += " — while executing: \(sql)" }
        if let arguments { text += " — arguments: \(arguments)" }
        if let path { text += " — database: \(path)" }
        return text
    }
}
