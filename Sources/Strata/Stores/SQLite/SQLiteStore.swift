import Foundation
import StrataLocks
import StrataSQLite

/// How a SQLite store is opened.
struct SQLiteStoreConfiguration: Sendable {
    var readOnly = false
    var busyTimeout: TimeInterval = 5
    var journalMode: SQLiteConfiguration.JournalMode = .wal
    var synchronous: SQLiteConfiguration.Synchronous = .normal
    var maximumReaders = 4
    var pragmas: [String: String] = [:]
    var showsArgumentsInErrors = false
    /// Report every statement to `SQLObservers` (test support) even without `STRATA_SQL_DEBUG`.
    var recordsSQL = false
    /// The registered SQLite VFS to open connections with (`PersistentStoreOption.vfsName`).
    var vfsName: String?
    /// Whether saves and batch requests record persistent history
    /// (`PersistentStoreOption.persistentHistoryTracking`).
    var tracksHistory = false
    /// Set when the file keeps a persistent history but was opened without tracking: writes
    /// are refused (they would leave holes in the history), as Core Data makes such a store
    /// read-only.
    var hasUntrackedHistory = false

    /// Whether writes are refused (opened read-only, or history without tracking).
    var refusesWrites: Bool { readOnly || hasUntrackedHistory }
}

extension SQLiteStoreConfiguration {
    /// The configuration that `options` (``PersistentStoreOption`` keys) ask for; unknown keys
    /// and values of the wrong type are ignored, as Core Data ignores them.
    init(options: [String: any Sendable]) {
        var configuration = SQLiteStoreConfiguration()
        if let readOnly = options[PersistentStoreOption.readOnly] as? Bool { configuration.readOnly = readOnly }
        if let timeout = options[PersistentStoreOption.timeout] as? TimeInterval { configuration.busyTimeout = timeout }
        if let timeout = options[PersistentStoreOption.timeout] as? Int { configuration.busyTimeout = TimeInterval(timeout) }
        if let pragmas = options[PersistentStoreOption.sqlitePragmas] as? [String: String] { configuration.pragmas = pragmas }
        if let mode = (options[PersistentStoreOption.journalMode] as? String)?.uppercased() {
            configuration.journalMode = mode == "WAL" ? .wal : .rollback
        }
        if let level = (options[PersistentStoreOption.synchronous] as? String)?.uppercased(), let value = SQLiteConfiguration.Synchronous(rawValue: level) {
            configuration.synchronous = value
        }
        if let readers = options[PersistentStoreOption.maximumReaders] as? Int { configuration.maximumReaders = readers }
        if let shows = options[PersistentStoreOption.showsArgumentsInErrors] as? Bool { configuration.showsArgumentsInErrors = shows }
        if let records = options[PersistentStoreOption.recordsSQL] as? Bool { configuration.recordsSQL = records }
        if let vfs = options[PersistentStoreOption.vfsName] as? String { configuration.vfsName = vfs }
        configuration.tracksHistory = options.tracksPersistentHistory
        self = configuration
    }
}

/// The SQLite persistent store: Core Data's layout (see `SQLiteSchema`), one writer and a pool
/// of readers on a WAL database, every write in one `BEGIN IMMEDIATE` transaction.
final class SQLiteStore: IncrementalStore, StoreBackend, @unchecked Sendable {
    // @unchecked Sendable: connections are reached only through `pool`, which serialises them;
    // everything else is immutable (the metadata is kept by the base class).
    let schema: SQLiteSchema
    /// The SQL of reads and of saves, built from `schema` once.
    let fetchSQL: FetchStatements
    let saveSQL: SaveStatements
    /// The columns that may hold external binary data references, and their SQL.
    let externalSQL: ExternalBinaryStatements
    /// Each entity's columns and reads by key, by entity code (`SQLiteReadPlans.swift`).
    let readPlans: SQLiteReadPlans
    /// The files of external binary data (`ExternalBinaryStorage.swift`).
    let external: ExternalBinaryStorage
    let configuration: SQLiteStoreConfiguration
    let pool: SQLiteConnectionPool
    let sqlObservers: SQLObservers
    /// The metadata the store was opened with (what `loadMetadata()` returns).
    private let openedMetadata: [String: any Sendable]
    /// Posts remote-change notifications when the coordinator asked for them (see
    /// `SQLiteStore+History.swift`); stopped by `close()`.
    let remoteChangePoster = StrataLock<RemoteChangePoster?>(nil)

    static let typeName = "SQLite"

    /// Opens (creating when missing, with its folder) the database file at `url`, as the
    /// ``PersistentStoreOption`` keys in `options` ask. Throws when there is no URL, or the file
    /// is not a Strata store, is damaged, or was made with a different model (134080) that
    /// `options` do not ask to migrate from (see `SQLiteStore+Migration.swift`).
    required init(model: ManagedObjectModel, configurationName: String?, url: URL?, options: [String: any Sendable]) throws {
        guard let url else {
            throw StrataError(code: StrataError.Code.persistentStoreInvalidType, message: "A SQLite store needs a file URL")
        }
        let configuration = SQLiteStoreConfiguration(options: options)
        let observers = (options[SQLObservers.optionKey] as? SQLObservers) ?? SQLObservers()
        self.schema = SQLiteSchema(model: model)
        self.fetchSQL = FetchStatements(schema: schema)
        self.saveSQL = SaveStatements(schema: schema)
        self.externalSQL = ExternalBinaryStatements(schema: schema)
        self.readPlans = SQLiteReadPlans(model: model, schema: schema, fetchSQL: fetchSQL, externalSQL: externalSQL)
        self.external = ExternalBinaryStorage(storeURL: url, threshold: Self.externalThreshold(options))
        self.sqlObservers = observers
        let path = url.path
        func open(readOnly: Bool) throws -> SQLiteConnection {
            var options = SQLiteConfiguration()
            options.readOnly = readOnly
            options.busyTimeoutMilliseconds = Int(configuration.busyTimeout * 1000)
            options.journalMode = configuration.journalMode
            options.synchronous = configuration.synchronous
            options.showsArgumentsInErrors = configuration.showsArgumentsInErrors
            options.vfsName = configuration.vfsName
            let connection: SQLiteConnection
            do {
                connection = try SQLiteConnection(path: path, configuration: options)
            } catch let error as SQLiteError {
                throw Self.openError(error, url: url)
            }
            for (name, value) in configuration.pragmas.sorted(by: { $0.key < $1.key }) {
                try connection.execute(MetadataStatements.pragma(name, value))
            }
            try SQLiteCustomFunctions.register(on: connection)
            SQLTracing.install(on: connection, observers: observers, forced: configuration.recordsSQL)
            return connection
        }
        if !configuration.readOnly {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        let writer = try open(readOnly: configuration.readOnly)
        if !configuration.readOnly && writer.isReadOnly { throw Self.readOnlyFileError(url: url) }
        let metadata: [String: any Sendable]
        do {
            try Self.migrateIfNeeded(on: writer, model: model, url: url, options: options, readOnly: configuration.readOnly)
            metadata = try Self.prepareSchema(on: writer, schema: schema, model: model, url: url, readOnly: configuration.readOnly)
            if configuration.tracksHistory && !configuration.readOnly { try Self.prepareHistoryTables(on: writer) }
            var checked = configuration
            if !configuration.tracksHistory && !configuration.readOnly {
                checked.hasUntrackedHistory = try Self.tableExists(HistoryStatements.transactionTable, on: writer)
            }
            if configuration.tracksHistory && configuration.readOnly {
                // A read-only file that never kept history has none to read.
                checked.tracksHistory = try Self.tableExists(HistoryStatements.transactionTable, on: writer)
            }
            self.configuration = checked
        } catch let error as SQLiteError {
            throw StrataError.sqlite(error, while: "Opening the store", url: url, defaultCode: StrataError.Code.persistentStoreOpen)
        }
        self.openedMetadata = metadata
        let readOnly = configuration.readOnly
        self.pool = SQLiteConnectionPool(writer: writer, maximumReaders: configuration.maximumReaders) {
            try open(readOnly: readOnly)
        }
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
        // Only now: `prepareSchema` has checked that the file's schema is this model's.
        collectExternalOrphans()
    }

    override func loadMetadata() throws -> [String: any Sendable] { openedMetadata }

    override func close() {
        remoteChangePoster.withLock { slot -> RemoteChangePoster? in
            defer { slot = nil }
            return slot
        }?.stop()
        sweepExternalData(waitingForReaders: false)
        pool.close()
    }

    var generationKey: AnyObject { pool }

    override func pinGeneration() throws -> any PinnedStoreState {
        do {
            return try pool.pinGeneration()
        } catch {
            throw wrap(error, "Pinning a query generation")
        }
    }

    // MARK: Schema and metadata

    /// Creates the schema of a new store, or checks that an existing store was made with this
    /// model. Returns the store metadata.
    private static func prepareSchema(on connection: SQLiteConnection, schema: SQLiteSchema, model: ManagedObjectModel, url: URL, readOnly: Bool) throws -> [String: any Sendable] {
        let body = {
            let hasMetadata = try tableExists(MetadataStatements.metadataTable, on: connection)
            if hasMetadata {
                let metadata = try readMetadata(on: connection, url: url)
                try checkCompatibility(metadata, model: model, url: url)
                if !readOnly {
                    // Indexes are not part of the version hash: create any the model added.
                    for statement in schema.indexStatements { try connection.execute(statement) }
                }
                return metadata
            }
            if readOnly {
                throw StrataError(code: StrataError.Code.persistentStoreOpen, message: "The store file is empty and was opened read-only", url: url)
            }
            // A file with tables of its own is some other program's database: never touch it.
            let otherTables = try connection.cachedStatement(MetadataStatements.tableCount)
            var count: Int64 = 0
            try otherTables.forEachRow { count = $0.int64(at: 0) }
            if count > 0 {
                throw StrataError(
                    code: StrataError.Code.persistentStoreOpen, message: "The file is a SQLite database that was not created by Strata (it has \(count) table(s) and no Z_METADATA)", url: url)
            }
            for statement in schema.creationStatements {
                try connection.execute(statement)
            }
            let insertKey = try connection.cachedStatement(MetadataStatements.insertPrimaryKeyRow)
            for entity in model.entities.sorted(by: { $0.layout.code < $1.layout.code }) {
                try insertKey.execute([.integer(entity.layout.code), .text(entity.name), .integer(entity.superentity?.layout.code ?? 0)])
            }
            var metadata = model.versionMetadata
            metadata[StoreMetadataKey.storeUUID] = UUID().uuidString
            metadata[StoreMetadataKey.storeType] = typeName
            try writeMetadata(metadata, on: connection)
            return metadata
        }
        if readOnly { return try body() }
        // Opening an existing, complete store reads only: it must not wait for (or time out
        // behind) another process's write transaction. The write lock is taken only when the
        // schema or an index must be created.
        if let metadata = try connection.transaction(.deferred, { try completeStoreMetadata(on: connection, schema: schema, model: model, url: url) }) {
            return metadata
        }
        return try connection.transaction(Self.writeTransaction, body)
    }

    /// Reads the metadata of the store file at `url` without opening it as a store.
    static func metadataOfStore(at url: URL) throws -> [String: any Sendable] {
        do {
            var options = SQLiteConfiguration()
            options.readOnly = true
            let connection = try SQLiteConnection(path: url.path, configuration: options)
            return try readMetadata(on: connection, url: url)
        } catch {
            throw StrataError.wrapping(error, while: "Reading the store's metadata", url: url, defaultCode: StrataError.Code.persistentStoreOpen)
        }
    }

    static func tableExists(_ name: String, on connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.cachedStatement(MetadataStatements.tableExists)
        var found = false
        try statement.forEachRow([.text(name)]) { _ in found = true }
        return found
    }

    static func readMetadata(on connection: SQLiteConnection, url: URL) throws -> [String: any Sendable] {
        let statement = try connection.cachedStatement(MetadataStatements.readMetadata)
        var plist: Data?
        try statement.forEachRow { plist = $0.blob(at: 1) }
        // Made only when thrown: every open reads the metadata, and nearly every one succeeds.
        func damaged() -> StrataError {
            StrataError(code: StrataError.Code.persistentStoreOpen, message: "The store's metadata is missing or damaged", url: url)
        }
        guard let plist else { throw damaged() }
        return try SQLiteMetadataCache.shared.metadata(decodedFrom: plist) {
            guard let decoded = try? PropertyListReader.value(from: plist) as? [String: Any] else { throw damaged() }
            return MetadataCoding.sendable(decoded)
        }
    }

    static func writeMetadata(_ metadata: [String: any Sendable], on connection: SQLiteConnection) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: MetadataCoding.propertyList(metadata), format: .binary, options: 0)
        let statement = try connection.cachedStatement(MetadataStatements.writeMetadata)
        try statement.execute([.text(metadata[StoreMetadataKey.storeUUID] as? String ?? ""), .blob(data)])
    }

    /// Compares the store's recorded version hashes with the model's; a mismatch is a clear
    /// error naming the entities that differ (migration is a separate step).
    static func checkCompatibility(_ metadata: [String: any Sendable], model: ManagedObjectModel, url: URL) throws {
        try model.checkCompatibility(withStoreMetadata: metadata, remedy: "Migrate the store or open it with its own model.", url: url)
    }

    override func writeMetadata(_ metadata: [String: any Sendable]) throws {
        try pool.withWriter { connection in
            try connection.transaction(Self.writeTransaction) { try Self.writeMetadata(metadata, on: connection) }
        }
    }

    // MARK: The public primitives, on the direct paths

    override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
        try fetchRows(request.plan, options: options).map(IncrementalStoreNode.init(row:))
    }

    override func fetchObjectIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
        try fetchIDs(request.plan, options: options)
    }

    override func countRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> Int {
        try count(request.plan, options: options)
    }

    override func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
        try snapshots(for: ids, options: options).map(IncrementalStoreNode.init(row:))
    }

    override func newValues(forRelationship relationship: RelationshipDescription, forObjectsWith ids: [ManagedObjectID], options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        try toManyIDs(of: ids, relationship: relationship, options: options)
    }

    override func save(_ request: SaveChangesRequest) throws -> SaveChangesResult {
        try save(request.changes)
    }

    override func obtainPermanentIDs(for entity: EntityDescription, count: Int) throws -> [ManagedObjectID] {
        try allocatePrimaryKeys(for: entity, count: count).map { newObjectID(for: entity, referenceObject: $0) }
    }

    // MARK: Errors

    func wrap(_ error: any Error, _ doing: String) -> StrataError {
        StrataError.wrapping(error, while: doing, url: url)
    }
}

/// Converts metadata between property lists and `Sendable` dictionaries.
enum MetadataCoding {
    static func sendable(_ value: [String: Any]) -> [String: any Sendable] {
        var result: [String: any Sendable] = [:]
        for (key, item) in value { if let converted = sendableValue(item) { result[key] = converted } }
        return result
    }

    private static func sendableValue(_ value: Any) -> (any Sendable)? {
        switch value {
        case let v as String: return v
        case let v as Bool: return v
        case let v as Int: return v
        case let v as Int64: return v
        case let v as Double: return v
        case let v as Date: return v
        case let v as Data: return v
        case let v as [String: String]: return v
        case let v as [String: Any]: return sendable(v)
        case let v as [Any]: return v.compactMap(sendableValue)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    static func propertyList(_ value: [String: any Sendable]) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, item) in value { result[key] = plistValue(item) }
        return result
    }

    private static func plistValue(_ value: any Sendable) -> Any {
        switch value {
        case let v as [String: any Sendable]: return propertyList(v)
        case let v as [any Sendable]: return v.map(plistValue)
        default: return value
        }
    }
}
