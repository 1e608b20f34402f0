/// How a `SQLiteConnection` is opened and set up.
public struct SQLiteConfiguration: Sendable {
    /// The journal mode to set when the connection opens (ignored for read-only connections).
    public enum JournalMode: String, Sendable {
        /// Write-ahead log: readers never block the writer and the writer never blocks readers.
        case wal
        /// The classic rollback journal (`DELETE` mode).
        case rollback
        /// Journal kept in memory (for in-memory databases).
        case memory
    }

    /// `PRAGMA synchronous` levels.
    public enum Synchronous: String, Sendable {
        case off = "OFF"
        case normal = "NORMAL"
        case full = "FULL"
        case extra = "EXTRA"
    }

    /// Open the file read-only.
    public var readOnly = false
    /// How long a statement waits for a lock held by another connection before `SQLITE_BUSY`.
    public var busyTimeoutMilliseconds = 5_000
    /// The journal mode; WAL by default.
    public var journalMode: JournalMode = .wal
    /// Durability level; `NORMAL` by default (safe in WAL mode: a power loss may lose the last
    /// transactions, never corrupt the file).
    public var synchronous: Synchronous = .normal
    /// Whether SQLite enforces foreign keys.
    public var foreignKeys = false
    /// Whether error descriptions include bound arguments (off: they may hold user data).
    public var showsArgumentsInErrors = false
    /// How many prepared statements the connection keeps.
    public var statementCacheCapacity = 64
    /// The name of a registered SQLite VFS to open the file with (`sqlite3_open_v2`'s `zVfs`);
    /// `nil` (the default) uses SQLite's default VFS. Strata itself never registers a VFS: this
    /// exists so tests and tools can open stores through a wrapper (fault injection, tracing).
    public var vfsName: String?

    /// Creates the default configuration: read-write, WAL, `synchronous=NORMAL`, 5 s busy timeout.
    public init() {}
}
