import Foundation

/// Store files as a whole: destroying, replacing and migrating stores (Core Data's
/// `destroyPersistentStore(at:type:options:)`, `replacePersistentStore(at:destinationOptions:
/// withPersistentStoreFrom:sourceOptions:type:)` and `migratePersistentStore(_:to:options:type:)`).
/// For SQLite stores each moves the external binary data folder with the database (see
/// `Stores/SQLite/SQLiteStore+Files.swift` for the order of the steps and what a crash leaves).
extension PersistentStoreCoordinator {
    /// Deletes the store at `url` and everything beside it that belongs to it: for `.sqlite`,
    /// the database, its `-wal`, `-shm` and `-journal` files and its `.<StoreName>_SUPPORT`
    /// folder (external binary data). A store of this coordinator at `url` is removed from it
    /// first. `options` are accepted as Core Data accepts them and not used. Throws
    /// (134070) when a file cannot be removed, and for store types without files on disk.
    /// Callable from any thread.
    public func destroyPersistentStore(at url: URL, type: StoreType = .sqlite, options: [String: any Sendable]? = nil) throws {
        try requireSQLite(type, url: url, "destroyPersistentStore")
        if let store = persistentStore(for: url) { try remove(store) }
        try SQLiteStore.destroyFiles(at: url)
    }

    /// Makes the store at `destinationURL` a copy of the store at `sourceURL`, with the source's
    /// external binary data files (created when missing). The copy is one consistent snapshot of
    /// the source, taken under its write lock; the source may be open meanwhile, in this or
    /// another process. The destination must not be open, in this process or another (one added
    /// to this coordinator is refused: remove it first); its old files are collected when it
    /// next opens.
    /// The options are accepted as Core Data accepts them and not used. Throws 134070 when
    /// the source is missing or not a Strata store, or a file cannot be written. Callable from
    /// any thread.
    public func replacePersistentStore(
        at destinationURL: URL, destinationOptions: [String: any Sendable]? = nil, withPersistentStoreFrom sourceURL: URL,
        sourceOptions: [String: any Sendable]? = nil, type: StoreType = .sqlite
    ) throws {
        try requireSQLite(type, url: destinationURL, "replacePersistentStore")
        guard persistentStore(for: destinationURL) == nil else {
            throw StrataError(
                code: StrataError.Code.persistentStoreOperation, message: "The destination store is added to this coordinator: remove it before replacing it", url: destinationURL)
        }
        guard sourceURL.standardizedFileURL != destinationURL.standardizedFileURL else { return }
        try SQLiteStore.copyFiles(from: sourceURL, to: destinationURL)
    }

    /// Copies `store` to `url` (with its external binary data files), adds the copy with
    /// `options` (the store's own when nil), removes `store` from the coordinator and returns
    /// the new store, as Core Data's `migratePersistentStore` does. Saved changes only: unsaved
    /// changes of contexts stay in the contexts, and objects of the old store must be fetched
    /// again from the new one. Only SQLite to SQLite is supported yet (other pairs throw
    /// 134000). Callable from any thread, when no save runs on `store`.
    @discardableResult
    public func migratePersistentStore(_ store: PersistentStore, to url: URL, options: [String: any Sendable]? = nil, type: StoreType = .sqlite) throws -> PersistentStore {
        try requireSQLite(type, url: url, "migratePersistentStore")
        guard store.type == .sqlite, let sourceURL = store.url else {
            throw StrataError(
                code: StrataError.Code.persistentStoreInvalidType, message: "migratePersistentStore supports SQLite stores only (this store is \(store.type.rawValue))", url: store.url)
        }
        guard persistentStores.contains(where: { $0 === store }) else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The store does not belong to this coordinator", url: sourceURL)
        }
        guard persistentStore(for: url) == nil, sourceURL.standardizedFileURL != url.standardizedFileURL else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "A store of this coordinator is already at the destination", url: url)
        }
        try SQLiteStore.copyFiles(from: sourceURL, to: url)
        let copy = try addPersistentStore(type: type, configuration: store.configurationName, at: url, options: options ?? store.options)
        try remove(store)
        return copy
    }

    private func requireSQLite(_ type: StoreType, url: URL, _ operation: String) throws {
        guard type == .sqlite else {
            throw StrataError(code: StrataError.Code.persistentStoreInvalidType, message: "\(operation) supports .sqlite stores only (asked: \(type.rawValue))", url: url)
        }
    }
}
