/// The SQL of opening a store and of its own tables, besides the schema's DDL
/// (`SQLiteSchema.creationStatements`): SQLite's catalogue, `Z_METADATA` (the store's
/// identifier and the model's version hashes, as a binary property list, Core Data's layout),
/// `Z_PRIMARYKEY`'s rows, the app's pragmas and the pinned read of a query generation. No
/// database connection.
enum MetadataStatements {
    /// The table whose presence marks a Strata store (checked before anything is touched).
    static let metadataTable = "Z_METADATA"

    /// Whether a table exists (binds its name; a row comes back when it does).
    static let tableExists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"

    /// How many tables the file has: a file with tables of its own and no `Z_METADATA` is some
    /// other program's database, which Strata never touches.
    static let tableCount = "SELECT count(*) FROM sqlite_master WHERE type = 'table'"

    /// The names of every index (opening an existing store checks that the model's all exist).
    static let indexNames = "SELECT name FROM sqlite_master WHERE type = 'index'"

    /// The metadata row: `Z_UUID` and `Z_PLIST` (the binary property list).
    static let readMetadata = "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1"

    /// Writes the metadata row (binds the store identifier and the property list).
    static let writeMetadata = "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)"

    /// A new store's row for one entity (binds its code, name and its super-entity's code, 0 for
    /// a root): no primary key handed out yet.
    static let insertPrimaryKeyRow = "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)"

    /// A query generation holds a deferred read transaction open; this, its first read, fixes
    /// the snapshot every later read of the transaction sees (in WAL mode the snapshot is taken
    /// at the first read, not at `BEGIN`).
    static let pinnedFirstRead = "SELECT count(*) FROM Z_METADATA"

    /// A `PRAGMA name = value` statement of `PersistentStoreOption.sqlitePragmas`, run on every
    /// connection. Name and value are the app's own SQL, as in Core Data's `NSSQLitePragmasOption`
    /// (a pragma's value cannot be a bound parameter).
    static func pragma(_ name: String, _ value: String) -> String {
        "PRAGMA \(name) = \(value)"
    }
}
