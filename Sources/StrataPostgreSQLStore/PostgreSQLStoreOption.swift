/// Option keys of the PostgreSQL store, for `addPersistentStore(type: .postgreSQL, at:options:)`
/// and `PersistentStoreDescription.setOption(_:forKey:)`, beside Strata's
/// `PersistentStoreOption` keys (of those, the store honours `readOnly`: saves and metadata
/// writes are refused with 134030, and a namespace without a store is not given one).
///
/// Constants: use them on any thread.
public enum PostgreSQLStoreOption {
    /// `String`: the PostgreSQL schema (namespace) holding the store's tables, sequences and
    /// metadata. Default `"public"`. Created (`CREATE SCHEMA IF NOT EXISTS`) when the store is
    /// created in it, so one database can hold several stores, one per namespace.
    public static let namespace = "StrataPostgreSQLNamespaceOption"
    /// `Int`: the most connections the store opens to the server at once (default 4; at least 1).
    /// Each read or save borrows one for its duration.
    public static let maximumConnections = "StrataPostgreSQLMaximumConnectionsOption"
    /// `TimeInterval` or `Int` (seconds): how long a read or save waits for a free pooled
    /// connection, and how long opening a new connection may take (unless the URL gives
    /// `connect_timeout`), before it fails (default 5).
    public static let connectionTimeout = "StrataPostgreSQLConnectionTimeoutOption"
    /// `Bool`: listen for other processes' commits on the namespace (`LISTEN`, on one more
    /// connection of the store's own), so that contexts with `automaticallyMergesChangesFromParent`
    /// merge them and `.persistentStoreRemoteChange` can be posted. Default true; saves announce
    /// their changes (`NOTIFY`) either way.
    public static let listensForChanges = "StrataPostgreSQLListensForChangesOption"
    /// `Bool`: run the statements the store runs many times (fetches, reads by key, a save's
    /// per-row `UPDATE` and `DELETE`) as statements prepared on each connection, so the server
    /// parses and plans each text once per connection (`PostgreSQLConnection.executeCached`).
    /// Default true. Set it to false behind a pooler that does not keep a session's prepared
    /// statements (PgBouncer before 1.21 in transaction mode).
    public static let preparesStatements = "StrataPostgreSQLPreparesStatementsOption"

    /// The namespace used when ``namespace`` is not given.
    public static let defaultNamespace = "public"
    /// The pool size used when ``maximumConnections`` is not given.
    public static let defaultMaximumConnections = 4
}
