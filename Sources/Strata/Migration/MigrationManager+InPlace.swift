import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Migrating a SQLite store in place: into a new file beside it, then one rename over it.
extension MigrationManager {
    /// The file a store's in-place migration builds the new store in: the store's own file name
    /// inside a hidden folder beside it (`.strata-migrating-<name>/<name>`), so that the new
    /// store's external data folder is its own and never the store's. A leftover folder from an
    /// interrupted migration is removed by the next attempt. Callable from any thread.
    public static func inPlaceMigrationURL(for storeURL: URL) -> URL {
        inPlaceMigrationFolder(for: storeURL).appendingPathComponent(storeURL.lastPathComponent)
    }

    /// The hidden folder of ``inPlaceMigrationURL(for:)``.
    static func inPlaceMigrationFolder(for storeURL: URL) -> URL {
        storeURL.deletingLastPathComponent().appendingPathComponent(".strata-migrating-" + storeURL.lastPathComponent, isDirectory: true)
    }

    /// Migrates the SQLite store at `url` from ``sourceModel`` to ``destinationModel`` through
    /// `mapping`, replacing it: the new store is built by
    /// `migrateStore(from:type:options:mapping:to:type:options:)` in
    /// ``inPlaceMigrationURL(for:)`` (with the rollback journal, so it is complete in its one
    /// file), then renamed over the original, which is atomic. Before that, the original's
    /// write-ahead log is checkpointed into its main file, so that at every instant — a crash
    /// included — the path holds either the complete old store or the complete new one. No
    /// coordinator may have the store open meanwhile (134150 when its log cannot be emptied);
    /// `options` are used for both the source and the new store (the new store takes its
    /// journal mode from them when next opened). Errors as `migrateStore`; on any error the
    /// original is left as it was. Runs on the calling thread.
    public func migrateStoreInPlace(at url: URL, type: StoreType = .sqlite, options: [String: any Sendable]? = nil, mapping: MappingModel) throws {
        guard type == .sqlite else {
            throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Only SQLite stores can be migrated in place (type \(type.rawValue))", url: url)
        }
        try checkMapping(mapping)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StrataError(code: StrataError.Code.migrationManagerSourceStore, message: "No store to migrate at this path", url: url)
        }
        let temporary = Self.inPlaceMigrationURL(for: url)
        let folder = Self.inPlaceMigrationFolder(for: url)
        // Only this folder is ever removed: the store's own files and external data stay.
        try? FileManager.default.removeItem(at: folder)
        try checkpointSource(at: url, options: options)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw Self.storeError(error, code: StrataError.Code.migrationManagerDestinationStore, what: "Creating the folder the new store is built in", url: folder)
        }
        defer { try? FileManager.default.removeItem(at: folder) }

        var destinationOptions = options ?? [:]
        destinationOptions[PersistentStoreOption.journalMode] = "DELETE"
        try migrateStore(from: url, type: .sqlite, options: options, mapping: mapping, to: temporary, type: .sqlite, options: destinationOptions)

        do {
            for leftover in ["-wal", "-journal"] where Self.fileSize(temporary.path + leftover) > 0 {
                throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "The new store still has a \(leftover) file after it was closed", url: temporary)
            }
            try Self.sync(path: temporary.path)
            // The old store's log is empty (checked above): its main file is the whole old store.
            if Self.fileSize(url.path + "-wal") > 0 {
                throw StrataError(
                    code: StrataError.Code.migrationManagerSourceStore, message: "The store's write-ahead log was written during the migration: another coordinator has it open", url: url)
            }
            // Values the new store wrote to files join the store's external data folder before
            // the rename, so every reference the new store holds has its file from then on.
            try SQLiteStore.linkExternalData(ofStoreAt: temporary, intoStoreAt: url)
            try? FileManager.default.removeItem(atPath: url.path + "-wal")
            try? FileManager.default.removeItem(atPath: url.path + "-shm")
            guard rename(temporary.path, url.path) == 0 else {
                throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Renaming the new store over the old one failed (errno \(errno))", url: url)
            }
        }
        try? Self.sync(path: url.deletingLastPathComponent().path)
    }

    /// Opens the store with the source model read-write and closes it, which moves its
    /// write-ahead log into the main file; then checks that the log is gone or empty.
    private func checkpointSource(at url: URL, options: [String: any Sendable]?) throws {
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel, name: "MigrationManager.checkpoint")
            let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
            try coordinator.remove(store)
        } catch {
            throw Self.storeError(error, code: StrataError.Code.migrationManagerSourceStore, what: "Opening the store to migrate with the source model", url: url)
        }
        if Self.fileSize(url.path + "-wal") > 0 {
            throw StrataError(
                code: StrataError.Code.migrationManagerSourceStore,
                message: "The store's write-ahead log could not be emptied (is another coordinator or process using the store?); it is left as it was", url: url)
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return 0 }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Flushes a file or folder to disk.
    static func sync(path: String) throws {
        try FileSync.sync(path, code: StrataError.Code.migrationManagerDestinationStore, context: "Migrating the store in place")
    }
}
