import Foundation
import Strata
import StrataLocks
import StrataPostgreSQL

/// A store in a PostgreSQL database (``StoreType/postgreSQL``), written against Strata's public
/// store seam (`IncrementalStore`) only, so that several app servers with their own
/// coordinators can share one database.
///
/// The layout is `PostgreSQLSchema`'s: one table per inheritance root with `"$pk"`,
/// `"$entity"` and `"$version"` columns, a column per stored attribute and to-one, join tables
/// for the other to-manys, one key sequence per root and a `"$metadata"` table, all in one
/// PostgreSQL schema (``PostgreSQLStoreOption/namespace``). ``loadMetadata()`` creates them the
/// first time; saves are single transactions with optimistic locking by row versions.
///
/// Fetches are compiled to SQL (``PostgreSQLFetchCompiler``) as far as SQL does exactly what
/// Strata's in-memory engine does; the rest of a request is finished in memory
/// (`StoreFetchRequest.evaluate`), so results are the SQLite store's. Query generations are
/// `REPEATABLE READ` snapshots held on connections of their own.
///
/// Thread-safe: the coordinator calls it from many threads at once.
public final class PostgreSQLStore: IncrementalStore, @unchecked Sendable {
    // @unchecked Sendable: every stored property is immutable after `init` (the schema, the
    // read plans and the configuration are values; the pool is itself thread-safe and lends a
    // connection to one caller at a time), except `changeListener`, guarded by its lock.

    /// The connection settings (the URL with its password, shown only redacted).
    let configuration: PostgreSQLConfiguration
    /// The connections the store reads and saves with.
    let pool: PostgreSQLConnectionPool
    /// The names of every table, column, join table and sequence.
    let schema: PostgreSQLSchema
    /// How to read and write rows of each entity, by entity name.
    let plans: [String: PostgreSQLEntityPlan]
    /// The URL with `***` in place of any password: the only form errors carry.
    let redactedURL: URL?
    /// This store instance in the change messages it sends (its own are not merged back).
    let changeOrigin = UUID().uuidString
    /// The listener for other stores' commits (PostgreSQLStore+Changes.swift), while open.
    let changeListener = StrataLock<PostgreSQLChangeListener?>(nil)
    /// Whether the store was added with `PersistentStoreOption.readOnly`: saves and metadata
    /// writes are refused (134030), and a namespace without a store is not given one.
    let isReadOnly: Bool
    /// Whether the store was added with `PersistentStoreOption.persistentHistoryTracking`:
    /// every write records a history transaction (PostgreSQLStore+History.swift).
    let tracksHistory: Bool
    /// Whether statements run many times go through each connection's prepared statements
    /// (``PostgreSQLStoreOption/preparesStatements``; see ``run(_:parameters:on:)``).
    let preparesStatements: Bool
    /// What opening found of the namespace's history.
    let historyState = StrataLock(PostgreSQLHistoryState())
    /// The newest history transaction this store heard of (read when it starts listening,
    /// raised by other stores' change messages): where a reconnected listener resumes.
    let historyCursor = StrataLock<Int64>(0)

    /// Creates the store for the `postgresql://` URL `url`; opens no connection (that is
    /// ``loadMetadata()``'s job). Throws 134080 (`persistentStoreOpen`) for a missing or
    /// malformed URL or a model PostgreSQL cannot name. Called by the coordinator, on the
    /// thread adding the store.
    public required init(model: ManagedObjectModel, configurationName: String?, url: URL?, options: [String: any Sendable]) throws {
        guard let url else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOpen,
                message: "A PostgreSQL store needs a postgresql://user:password@host:port/database URL")
        }
        let configuration: PostgreSQLConfiguration
        // Clamped, so that no option value can trap a conversion: 0.1 s to one day.
        let timeoutMilliseconds = Int64(min(max(Self.number(options[PostgreSQLStoreOption.connectionTimeout]) ?? 5, 0.1), 86_400) * 1000)
        do {
            configuration = try PostgreSQLConfiguration(url: url.absoluteString, defaultConnectTimeout: .milliseconds(timeoutMilliseconds))
        } catch {
            throw StrataError(code: StrataError.Code.persistentStoreOpen, message: "Opening the PostgreSQL store failed: \(error)")
        }
        let redacted = URL(string: configuration.redactedURL)
        let namespace = options[PostgreSQLStoreOption.namespace] as? String ?? PostgreSQLStoreOption.defaultNamespace
        let schema: PostgreSQLSchema
        do {
            schema = try PostgreSQLSchema(model: model, configurationName: configurationName, namespace: namespace)
        } catch {
            throw StrataError(code: StrataError.Code.persistentStoreOpen, message: "The model cannot be stored in PostgreSQL: \(error)", url: redacted)
        }
        let connections = Self.number(options[PostgreSQLStoreOption.maximumConnections]).map { Int(min(max($0, 1), 10_000)) } ?? PostgreSQLStoreOption.defaultMaximumConnections
        self.configuration = configuration
        self.isReadOnly = options[PersistentStoreOption.readOnly] as? Bool ?? false
        self.tracksHistory = options[PersistentStoreOption.persistentHistoryTracking] as? Bool ?? false
        self.preparesStatements = options[PostgreSQLStoreOption.preparesStatements] as? Bool ?? true
        self.redactedURL = redacted
        self.schema = schema
        self.plans = PostgreSQLEntityPlan.plans(for: model, configurationName: configurationName, schema: schema)
        self.pool = PostgreSQLConnectionPool(
            configuration: configuration, maximumConnections: max(1, connections), checkoutTimeout: .milliseconds(timeoutMilliseconds))
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
    }

    // MARK: The store primitives (overrides must be in the class body; each forwards to the
    // file of its concern)

    /// Connects, creates the schema if the namespace holds no store yet, and returns the
    /// metadata (see `openStore()` in PostgreSQLStore+Metadata.swift). Called once by the
    /// coordinator, on the thread adding the store.
    public override func loadMetadata() throws -> [String: any Sendable] {
        let metadata = try openStore()
        do {
            try startListening()
        } catch {
            throw strataError(error, while: "Listening for other processes' changes to the PostgreSQL store", code: StrataError.Code.persistentStoreOpen)
        }
        return metadata
    }

    /// True: the store reports what other processes commit to its namespace (see
    /// PostgreSQLStore+Changes.swift), so it may be added with
    /// `PersistentStoreOption.remoteChangeNotificationPost`.
    public override var reportsChangesMadeElsewhere: Bool { true }

    /// Whether the store keeps a persistent history: it was added with
    /// `PersistentStoreOption.persistentHistoryTracking` (PostgreSQLStore+History.swift).
    /// Callable from any thread.
    public override var keepsPersistentHistory: Bool { tracksHistory }

    /// The history transactions after `bound`, in commit order. Callable from any thread.
    public override func fetchHistory(after bound: StoreHistoryBound, includingChanges: Bool) throws -> [StoreHistoryTransaction] {
        try historyTransactions(after: bound, includingChanges: includingChanges)
    }

    /// The number of history changes after `bound`. Callable from any thread.
    public override func countOfHistoryChanges(after bound: StoreHistoryBound) throws -> Int {
        try historyChangeCount(after: bound)
    }

    /// Deletes the history up to `bound` in one transaction; returns how many changes went.
    /// Callable from any thread.
    public override func deleteHistoryTransactions(before bound: StoreHistoryBound) throws -> Int {
        try deleteHistory(upTo: bound)
    }

    /// The number of the newest committed history transaction. Callable from any thread.
    public override func newestHistoryTransactionNumber() throws -> Int64 {
        try newestHistoryNumber()
    }

    /// Replaces the stored metadata (property-list values only; anything else is refused with
    /// 134070 and nothing is written). Callable from any thread.
    public override func writeMetadata(_ metadata: [String: any Sendable]) throws {
        if isReadOnly { throw readOnlyError() }
        try storeMetadata(metadata)
    }

    /// The rows `request` matches, in its order and window. Callable from any thread.
    public override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        try matchingRows(request, options: options).nodes
    }

    /// ``fetchRows(_:options:)`` as a row list (how Strata reads a fetch: no node object per
    /// row). Callable from any thread.
    public override func fetchRowList(_ request: StoreFetchRequest, options: ReadOptions) throws -> IncrementalStoreRowList {
        try matchingRows(request, options: options)
    }

    /// The IDs of the rows `request` matches, in order. Callable from any thread.
    public override func fetchObjectIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
        try matchingIDs(request, options: options)
    }

    /// How many rows `request` matches within its offset and limit. Callable from any thread.
    public override func countRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> Int {
        try matchingCount(request, options: options)
    }

    /// Runs a dictionary fetch in SQL when that gives exactly Strata's results, else nil
    /// (PostgreSQLStore+Dictionaries.swift). Callable from any thread.
    public override func fetchDictionaryRows(_ request: StoreDictionaryFetchRequest, options: ReadOptions) throws -> [[Any?]]? {
        try dictionaryRows(request, options: options)
    }

    /// The current rows of the objects `ids` names that still exist, in any order. Callable
    /// from any thread.
    public override func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
        try rows(of: ids, options: options).nodes
    }

    /// ``newValuesForObjects(with:options:)`` as a row list (how Strata fires faults: no node
    /// object per row). Callable from any thread.
    public override func newValuesRowList(forObjectsWith ids: [ManagedObjectID], options: ReadOptions) throws -> IncrementalStoreRowList {
        try rows(of: ids, options: options)
    }

    /// The members of a to-many relationship for each owner in `ids` (ordered ones in order).
    /// Callable from any thread.
    public override func newValues(
        forRelationship relationship: RelationshipDescription, forObjectsWith ids: [ManagedObjectID], options: ReadOptions
    ) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try members(of: relationship, owners: ids, options: options)
    }

    /// Applies a save in one transaction, all or nothing (see PostgreSQLStore+Save.swift).
    /// Callable from any thread.
    public override func save(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        try checkWritable()
        return try saveChanges(request)
    }

    /// Runs a batch update as one `UPDATE` when an exactly compiled predicate selects its rows
    /// and it sets constants or expressions SQL computes exactly as Strata does; else nil, and
    /// Strata runs it (PostgreSQLStore+BatchRequests.swift). Callable from any thread.
    public override func executeBatchUpdate(_ request: StoreBatchUpdateRequest) throws -> StoreBatchUpdateResult? {
        try checkWritable()
        return try runBatchUpdate(request)
    }

    /// Runs a batch delete in SQL with the model's delete rules, in one transaction (see
    /// PostgreSQLStore+BatchDelete.swift); nil, for Strata to run it, when a table or
    /// relationship it reaches has no storage in this store. Callable from any thread.
    public override func executeBatchDelete(_ request: StoreBatchDeleteRequest) throws -> StoreBatchDeleteResult? {
        try checkWritable()
        return try runBatchDelete(request)
    }

    /// Runs a batch insert as `INSERT` statements in one transaction (`ON CONFLICT DO UPDATE`
    /// for one uniqueness constraint); nil, for Strata to run, with several constraints.
    /// Callable from any thread.
    public override func executeBatchInsert(_ request: StoreBatchInsertRequest) throws -> StoreBatchInsertResult? {
        try checkWritable()
        return try runBatchInsert(request)
    }

    /// `count` new permanent IDs for objects of `entity`, from its inheritance root's key
    /// sequence. Callable from any thread.
    public override func obtainPermanentIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        guard count > 0 else { return [] }
        let plan = try plan(for: entity)
        let keys = try withConnection("Obtaining permanent IDs from the PostgreSQL store") { connection in
            try nextKeys(count, of: plan.table, on: connection)
        }
        return keys.map { newObjectID(for: entity, referenceObject: $0) }
    }

    /// `count` new keys from `table`'s sequence. Runs on the thread holding `connection`.
    func nextKeys(_ count: Int, of table: PostgreSQLTable, on connection: PostgreSQLConnection) throws -> [Int64] {
        let result = try connection.execute(
            "SELECT nextval($1::regclass) FROM generate_series(1, $2::bigint)", parameters: [.text(table.keySequence), .int64(Int64(count))])
        return try result.map { row in
            guard let key = try row.int64(0) else {
                throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The key sequence of \(table.rootEntityName) returned NULL", url: redactedURL)
            }
            return key
        }
    }

    /// A numeric option's value (`Int` or `Double`, as an app may give either), else nil. Pure.
    static func number(_ value: (any Sendable)?) -> Double? {
        switch value {
        case let double as Double: return double.isFinite ? double : nil
        case let int as Int: return Double(int)
        default: return nil
        }
    }

    /// The error a write to a read-only store fails with (134030, as on SQLite). Any thread.
    func readOnlyError() -> StrataError {
        StrataError(code: StrataError.Code.persistentStoreSave, message: "The PostgreSQL store was opened read-only", url: redactedURL)
    }

    /// Closes the pool's connections; the store is not used afterwards. Callable from any thread.
    public override func close() {
        stopListening()
        pool.close()
    }

    deinit {
        stopListening()
        pool.close()
    }

    /// The read-and-write plan of `entity`, or a 134070 error when the store does not hold it.
    /// Callable from any thread.
    func plan(for entity: EntityDescription) throws -> PostgreSQLEntityPlan {
        guard let plan = plans[entity.name] else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation, message: "The PostgreSQL store does not hold entity '\(entity.name)'", entityName: entity.name,
                url: redactedURL)
        }
        return plan
    }

    /// Pins a query generation: a connection of its own holding a `REPEATABLE READ` snapshot
    /// (see `PostgreSQLPinnedState`), which reads through the generation use until it is
    /// released. Throws 134070 when no connection can be opened. Callable from any thread.
    public override func pinGeneration() throws -> any PinnedStoreState {
        do {
            return try PostgreSQLPinnedState(configuration: configuration)
        } catch {
            throw strataError(error, while: "Pinning a query generation of the PostgreSQL store", code: StrataError.Code.persistentStoreOperation)
        }
    }

    /// Runs `body` with the connection of the query generation `options` reads through, else
    /// with a pooled one (see ``withConnection(_:code:_:)``). Callable from any thread.
    func reading<T>(_ doing: String, options: ReadOptions, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        if let pinned = options.pinnedState(for: self) as? PostgreSQLPinnedState {
            do {
                if let value = try pinned.withConnection(body) { return value }
            } catch {
                throw strataError(error, while: doing, code: StrataError.Code.persistentStoreOperation)
            }
        }
        return try withConnection(doing, body)
    }

    /// Runs `body` with a pooled connection, turning any failure into a ``StrataError`` with
    /// `code` (unless it is one already) that says what was being done. Callable from any thread.
    func withConnection<T>(_ doing: String, code: Int = StrataError.Code.persistentStoreOperation, _ body: (PostgreSQLConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch {
            throw strataError(error, while: doing, code: code)
        }
    }

    /// Runs `sql`, a statement the store runs many times (a fetch, a read by key, a save's
    /// per-row write), on `connection`: prepared once per connection and text
    /// (`PostgreSQLConnection.executeCached`), or sent whole each time when the store was added
    /// with ``PostgreSQLStoreOption/preparesStatements`` false. On the thread holding `connection`.
    func run(_ sql: String, parameters: [PostgreSQLValue] = [], on connection: PostgreSQLConnection) throws -> PostgreSQLResult {
        preparesStatements ? try connection.executeCached(sql, parameters: parameters) : try connection.execute(sql, parameters: parameters)
    }

    /// `error` as a ``StrataError``: itself when it is one, else one with `code` whose message
    /// says what failed and carries the SQLSTATE and the server's message (never a password:
    /// `PostgreSQLError` descriptions show only the redacted URL). Callable from any thread.
    func strataError(_ error: any Error, while doing: String, code: Int) -> StrataError {
        if let strata = error as? StrataError { return strata }
        if let failure = error as? PostgreSQLError {
            var text = "\(doing) failed"
            if let state = failure.sqlState {
                text += ": SQLSTATE \(state)"
                if let name = PostgreSQLError.SQLState.name(of: state) { text += " (\(name))" }
            }
            text += ": \(configuration.redactedURL): \(failure.message)"
            if let detail = failure.detail { text += " (\(detail))" }
            if let constraint = failure.constraintName { text += " [constraint \(constraint)]" }
            return StrataError(code: code, message: text, url: redactedURL)
        }
        return StrataError(code: code, message: "\(doing) failed: \(error)", url: redactedURL)
    }
}
