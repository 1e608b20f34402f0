import Foundation

/// The names and layout of a PostgreSQL store's persistent history (PostgreSQLStore+History.swift):
///
/// - `"$history_transaction"`: one row per recorded transaction — `number` (from the
///   `"$history_number"` sequence, taken under a transaction-level advisory lock held to the
///   commit, so numbers rise in commit order), `timestamp` (seconds since 2001-01-01 on the
///   server's clock, as dates are stored), `author`, `context_name`, `origin` (the writing
///   store instance, as in its change messages: a listener that reconnects reads what others
///   wrote while it was away).
/// - `"$history_change"`: one row per change — `change_id` (rising), `transaction` (deleted
///   with its transaction), `entity`, `key` (the row's `"$pk"`), `type`
///   (`PersistentHistoryChangeType`'s raw value), `properties` (an update's property names, a
///   JSON array) and `tombstone` (a delete's preserved values, `PostgreSQLHistoryCoding`).
///
/// Created, if missing, when a store is opened with history tracking on. Immutable; any thread.
struct PostgreSQLHistoryTables: Sendable {
    /// The transactions table, quoted and qualified.
    let transactions: String
    /// The changes table, quoted and qualified.
    let changes: String
    /// The transaction-number sequence, quoted and qualified (as `regclass` text).
    let numberSequence: String

    init(qualifier: String) {
        transactions = qualifier + "\"$history_transaction\""
        changes = qualifier + "\"$history_change\""
        numberSequence = qualifier + "\"$history_number\""
    }

    /// The statements that create the history's tables, sequence and index where missing.
    var creationStatements: [String] {
        [
            "CREATE SEQUENCE IF NOT EXISTS \(numberSequence) AS bigint",
            """
            CREATE TABLE IF NOT EXISTS \(transactions) (number bigint PRIMARY KEY, "timestamp" double precision NOT NULL, \
            author text, context_name text, origin text)
            """,
            """
            CREATE TABLE IF NOT EXISTS \(changes) (change_id bigserial PRIMARY KEY, \
            "transaction" bigint NOT NULL REFERENCES \(transactions) (number) ON DELETE CASCADE, \
            entity text NOT NULL, key bigint NOT NULL, type smallint NOT NULL, properties text, tombstone text)
            """,
            "CREATE INDEX IF NOT EXISTS \"$history_change_transaction\" ON \(changes) (\"transaction\")",
            "CREATE INDEX IF NOT EXISTS \"$history_transaction_timestamp\" ON \(transactions) (\"timestamp\")",
        ]
    }
}
