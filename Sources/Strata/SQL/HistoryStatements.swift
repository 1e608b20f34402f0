/// The SQL of the persistent history (`PersistentStoreOption.persistentHistoryTracking`): two
/// tables of Strata's own beside the model's, created when a store is opened with tracking on.
///
/// - `Z_HISTORY_TRANSACTION`: one row per transaction; `Z_PK` is its number (`AUTOINCREMENT`,
///   so numbers only grow and are never reused after history is deleted), with its timestamp
///   (seconds since 2001, as Core Data stores dates), author and context name.
/// - `Z_HISTORY_CHANGE`: one row per changed object: its transaction, the change type
///   (0 insert, 1 update, 2 delete), the object's entity code and primary key, the names of the
///   updated properties (comma-separated) and the tombstone (encoded by `HistoryTombstoneCoding`).
///   Indexed by transaction.
///
/// No database connection.
enum HistoryStatements {
    static let transactionTable = "Z_HISTORY_TRANSACTION"

    static let creation = [
        "CREATE TABLE IF NOT EXISTS Z_HISTORY_TRANSACTION (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP REAL NOT NULL, ZAUTHOR TEXT, ZCONTEXTNAME TEXT)",
        "CREATE TABLE IF NOT EXISTS Z_HISTORY_CHANGE (Z_PK INTEGER PRIMARY KEY, ZTRANSACTION INTEGER NOT NULL, ZCHANGETYPE INTEGER NOT NULL, ZENTITY INTEGER NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS TEXT, ZTOMBSTONE BLOB)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORY_CHANGE_ZTRANSACTION ON Z_HISTORY_CHANGE (ZTRANSACTION)",
        "CREATE INDEX IF NOT EXISTS Z_HISTORY_TRANSACTION_ZTIMESTAMP ON Z_HISTORY_TRANSACTION (ZTIMESTAMP)",
    ]

    /// Binds timestamp, author, context name; the new number is the last insert row ID.
    static let insertTransaction = "INSERT INTO Z_HISTORY_TRANSACTION (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME) VALUES (?, ?, ?)"

    /// Binds transaction, type, entity code, primary key, columns, tombstone.
    static let insertChange = insertChanges(rows: 1)

    /// How many change rows one `insertChangeChunk` writes. One statement per row spent about
    /// a third of its time starting and finishing the statement (opening the table's and the
    /// index's cursors, halting); 32 rows (192 parameters, far below SQLite's limit of 32,766)
    /// share that, and more rows per statement measured no faster.
    static let changesPerChunk = 32

    /// `insertChange` for `changesPerChunk` rows: parameters 6·k+1 … 6·k+6 are row k's. `OR
    /// FAIL` spares SQLite the statement journal a statement that writes several rows keeps to
    /// undo them (see `SaveStatements.insertChunk(_:)`): history is written inside the
    /// transaction of its changes, which is rolled back if any statement fails.
    static let insertChangeChunk = insertChanges(rows: changesPerChunk, verb: "INSERT OR FAIL")

    /// The insert of `rows` change rows (six parameters a row, in `insertChange`'s order).
    private static func insertChanges(rows: Int, verb: String = "INSERT") -> String {
        verb + " INTO Z_HISTORY_CHANGE (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// The last transaction number ever handed out (no row when there was none): SQLite keeps
    /// it for `AUTOINCREMENT`, so it survives deleted history.
    static let lastTransaction = "SELECT seq FROM sqlite_sequence WHERE name = 'Z_HISTORY_TRANSACTION'"

    /// The numbers of the transactions after a number (binds it), in order.
    static let transactionNumbersAfter = "SELECT Z_PK FROM Z_HISTORY_TRANSACTION WHERE Z_PK > ? ORDER BY Z_PK"

    /// A counter that changes whenever another connection commits (SQLite's own).
    static let dataVersion = "PRAGMA data_version"

    private static let transactionColumns = "SELECT Z_PK, ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME FROM Z_HISTORY_TRANSACTION"
    private static let changeColumns = "SELECT c.Z_PK, c.ZTRANSACTION, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS, c.ZTOMBSTONE FROM Z_HISTORY_CHANGE c"

    /// The condition selecting transactions (`t` names the transaction table's key and time).
    private static func after(byDate: Bool, key: String, time: String) -> String {
        byDate ? "\(time) > ?" : "\(key) > ?"
    }

    /// The transactions after a number or a date (binds it), in order.
    static func transactions(byDate: Bool) -> String {
        transactionColumns + " WHERE " + after(byDate: byDate, key: "Z_PK", time: "ZTIMESTAMP") + " ORDER BY Z_PK"
    }

    /// The changes of the transactions after a number or a date (binds it), by transaction then
    /// change number.
    static func changes(byDate: Bool) -> String {
        byDate
            ? changeColumns + " JOIN Z_HISTORY_TRANSACTION t ON t.Z_PK = c.ZTRANSACTION WHERE t.ZTIMESTAMP > ? ORDER BY c.ZTRANSACTION, c.Z_PK"
            : changeColumns + " WHERE c.ZTRANSACTION > ? ORDER BY c.ZTRANSACTION, c.Z_PK"
    }

    /// The number of changes of the transactions after a number or a date (binds it).
    static func countChanges(byDate: Bool) -> String {
        byDate
            ? "SELECT count(*) FROM Z_HISTORY_CHANGE c JOIN Z_HISTORY_TRANSACTION t ON t.Z_PK = c.ZTRANSACTION WHERE t.ZTIMESTAMP > ?"
            : "SELECT count(*) FROM Z_HISTORY_CHANGE WHERE ZTRANSACTION > ?"
    }

    /// Deletes the changes, then the transactions, up to a number (inclusive) or before a date
    /// (binds it; run the two in this order).
    static func delete(byDate: Bool) -> (changes: String, transactions: String) {
        byDate
            ? (
                "DELETE FROM Z_HISTORY_CHANGE WHERE ZTRANSACTION IN (SELECT Z_PK FROM Z_HISTORY_TRANSACTION WHERE ZTIMESTAMP < ?)",
                "DELETE FROM Z_HISTORY_TRANSACTION WHERE ZTIMESTAMP < ?"
            )
            : ("DELETE FROM Z_HISTORY_CHANGE WHERE ZTRANSACTION <= ?", "DELETE FROM Z_HISTORY_TRANSACTION WHERE Z_PK <= ?")
    }
}
