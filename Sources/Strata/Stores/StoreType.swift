/// The kind of a persistent store (Core Data's `NSPersistentStore.StoreType`).
///
/// A `Sendable` value: use it on any thread.
public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's name, as recorded in store metadata.
    public let rawValue: String

    /// Creates a store type from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An embedded SQLite database file (the default): WAL, one writer and a pool of readers.
    public static let sqlite = StoreType(rawValue: "SQLite")
    /// A store kept in memory only; same observable behaviour, gone when the process ends.
    public static let inMemory = StoreType(rawValue: "InMemory")

    public var description: String { rawValue }
}

/// Option keys for `addPersistentStore(type:configuration:at:options:)` and
/// `PersistentStoreDescription.setOption(_:forKey:)`. Core Data's keys keep Core Data's names.
///
/// Constants: use them on any thread.
public enum PersistentStoreOption {
    /// `Bool`: open the store read-only; saves then fail with a clear error.
    public static let readOnly = "NSReadOnlyPersistentStoreOption"
    /// `TimeInterval` (seconds): how long a write waits for another process's lock before a
    /// timeout error (134090). Default 5.
    public static let timeout = "NSPersistentStoreTimeoutOption"
    /// `[String: String]`: extra `PRAGMA name = value` statements run on every connection.
    public static let sqlitePragmas = "NSSQLitePragmasOption"
    /// `String`: `"WAL"` (default) or `"DELETE"` (rollback journal).
    public static let journalMode = "StrataJournalModeOption"
    /// `String`: `"OFF"`, `"NORMAL"` (default), `"FULL"` or `"EXTRA"`.
    public static let synchronous = "StrataSynchronousOption"
    /// `Int`: the most reader connections the store opens (default 4).
    public static let maximumReaders = "StrataMaximumReadersOption"
    /// `Bool`: include bound values in error descriptions (off by default: they may hold user data).
    public static let showsArgumentsInErrors = "StrataShowsArgumentsInErrorsOption"
    /// `Bool`: report every statement to the coordinator's SQL observers (test support).
    public static let recordsSQL = "StrataRecordsSQLOption"
    /// `String`: the name of a SQLite VFS, registered by the app with `sqlite3_vfs_register`
    /// before the store is added, that every connection of the store opens the file with
    /// (default: SQLite's default VFS). Strata never registers one itself; Strata's reliability
    /// harness uses this to inject I/O faults (see docs/reliability.md). Adding a store with an
    /// unknown name fails with 134080 (`SQLITE_ERROR`, "no such vfs").
    public static let vfsName = "StrataVFSNameOption"
    /// `Bool`: keep a persistent history of the store's transactions (Core Data's
    /// `NSPersistentHistoryTrackingKey`): every root-context save and batch request records, in
    /// its own transaction, who wrote it and what changed (see ``PersistentHistoryChangeRequest``).
    /// Supported by `.sqlite` and `.inMemory`; a store class written against the public seam
    /// refuses it when added. A SQLite file that keeps a history and is added without this
    /// option is read-only (as in Core Data), so its history has no holes. Default false.
    public static let persistentHistoryTracking = "NSPersistentHistoryTrackingKey"
    /// `Bool`: post `.persistentStoreRemoteChange` after every transaction on the store, this
    /// process's and, for a SQLite file, other processes' (Core Data's
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`). A store class of the public
    /// seam accepts it when it reports other processes' changes
    /// (``IncrementalStore/reportsChangesMadeElsewhere``), and posts for those. Default false.
    public static let remoteChangeNotificationPost = "NSPersistentStoreRemoteChangeNotificationOptionKey"
    /// `Bool`: when the store was made with another version of the model, migrate it while
    /// adding it (Core Data's `NSMigratePersistentStoresAutomaticallyOption`). Needs
    /// ``inferMappingModelAutomatically`` too: Strata runs inferred (lightweight) migrations only.
    /// Default false for `addPersistentStore`; a `PersistentContainer` passes its description's
    /// `shouldMigrateStoreAutomatically` (true by default). See docs/models-and-migration.md.
    public static let migratePersistentStoresAutomatically = "NSMigratePersistentStoresAutomaticallyOption"
    /// `Bool`: infer the mapping model of an automatic migration (Core Data's
    /// `NSInferMappingModelAutomaticallyOption`). Default false for `addPersistentStore`; a
    /// `PersistentContainer` passes its description's `shouldInferMappingModelAutomatically`.
    public static let inferMappingModelAutomatically = "NSInferMappingModelAutomaticallyOption"
    /// `[ManagedObjectModel]`: more candidate source models for an automatic migration, besides
    /// the versions of the `.xcdatamodeld` bundle the coordinator's model was read from (a
    /// Strata addition, for models built in code). The one whose version hashes match the
    /// store's is migrated from.
    public static let migrationSourceModels = "StrataMigrationSourceModelsOption"
    /// `Int` (bytes): a Strata addition. Values of attributes that allow external binary data
    /// storage (`AttributeDescription.allowsExternalBinaryDataStorage`) whose size is at least
    /// this many bytes are kept in files beside a SQLite store, in
    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/`, named by their SHA-256; smaller values stay in the
    /// row. Default 102 400 (Core Data's "about 100 KB"). Values below 1 are taken as 1. Only the
    /// SQLite store reads it; see docs/models-and-migration.md, "External binary storage".
    public static let externalBinaryDataThreshold = "StrataExternalBinaryDataThresholdOption"
}
