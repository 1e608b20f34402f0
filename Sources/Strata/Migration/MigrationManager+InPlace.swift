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
    /// The file beside a store that ``migrateStoreInPlace(at:type:options:mapping:)`` builds
    /// the new store in (`<name>.migrating`); a leftover one from an interrupted migration is
    /// removed by the next attempt. Callable from any thread.
    public static func inPlaceMigrationURL(for storeURL: URL) -> URL {
        storeURL.deletingLastPathComponent().appendingPathComponent(storeURL.lastPathComponent + ".migrating")
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
        Self.removeStoreFiles(at: temporary)
        try checkpointSource(at: url, options: options)

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
            try? FileManager.default.removeItem(atPath: url.path + "-wal")
            try? FileManager.default.removeItem(atPath: url.path + "-shm")
            guard rename(temporary.path, url.path) == 0 else {
                throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Renaming the new store over the old one failed (errno \(errno))", url: url)
            }
        } catch {
            Self.removeStoreFiles(at: temporary)
            throw error
        }
        try? Self.sync(path: url.deletingLastPathComponent().path)
        Self.removeStoreFiles(at: temporary)
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
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Opening \(path) to flush it failed (errno \(errno))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Flushing \(path) failed (errno \(errno))")
        }
    }
}
