import Foundation

/// How a container adds one store (Core Data's `NSPersistentStoreDescription`). Configure it
/// before `loadPersistentStores`.
///
/// Set it up on one thread before the stores are loaded and leave it unchanged after: loading reads
/// it, possibly on another thread.
public final class PersistentStoreDescription: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a configuration object set up on one thread before loading, read after.
    /// The store type (`.sqlite` by default).
    public var type: StoreType = .sqlite
    /// The store file (SQLite), or `nil` for in-memory stores.
    public var url: URL?
    /// The model configuration the store holds; `nil` for all entities.
    public var configuration: String?
    /// Store options (`PersistentStoreOption` keys).
    public private(set) var options: [String: any Sendable] = [:]
    /// Open the store read-only.
    public var isReadOnly: Bool {
        get { options[PersistentStoreOption.readOnly] as? Bool ?? false }
        set { options[PersistentStoreOption.readOnly] = newValue }
    }
    /// How long a write waits for another process's lock (seconds).
    public var timeout: TimeInterval {
        get { options[PersistentStoreOption.timeout] as? TimeInterval ?? 5 }
        set { options[PersistentStoreOption.timeout] = newValue }
    }
    /// `PRAGMA name = value` statements run on every connection.
    public private(set) var sqlitePragmas: [String: String] = [:]
    /// Whether stores load on a background queue when a completion handler is given (Strata
    /// loads them in order on the calling thread either way; kept for Core Data compatibility).
    public var shouldAddStoreAsynchronously = false
    /// Whether loading the store migrates it when it was made with another version of the model
    /// (Core Data's default, true): passed as `PersistentStoreOption.migratePersistentStoresAutomatically`.
    /// Strata migrates only with an inferred mapping, so ``shouldInferMappingModelAutomatically``
    /// must be true too. See docs/models-and-migration.md.
    public var shouldMigrateStoreAutomatically: Bool {
        get { options[PersistentStoreOption.migratePersistentStoresAutomatically] as? Bool ?? true }
        set { options[PersistentStoreOption.migratePersistentStoresAutomatically] = newValue }
    }
    /// Whether an automatic migration infers its mapping model (default true): passed as
    /// `PersistentStoreOption.inferMappingModelAutomatically`.
    public var shouldInferMappingModelAutomatically: Bool {
        get { options[PersistentStoreOption.inferMappingModelAutomatically] as? Bool ?? true }
        set { options[PersistentStoreOption.inferMappingModelAutomatically] = newValue }
    }

    /// A description of a SQLite store at `url`.
    public init(url: URL) {
        self.url = url
    }

    /// A description with no URL (the container fills in its default SQLite file).
    public init() {}

    /// Sets an option (`PersistentStoreOption` keys); `nil` removes it.
    public func setOption(_ value: (any Sendable)?, forKey key: String) {
        options[key] = value
    }

    /// Sets a SQLite pragma run on every connection; `nil` removes it.
    public func setValue(_ value: String?, forPragmaNamed name: String) {
        sqlitePragmas[name] = value
        options[PersistentStoreOption.sqlitePragmas] = sqlitePragmas
    }

    public var description: String {
        "<PersistentStoreDescription \(type.rawValue) \(url?.path ?? "(memory)")>"
    }
}
