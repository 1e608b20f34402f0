import Foundation
import StrataSQLite

#if canImport(Glibc)
import Glibc
#endif

/// A SQLite store's files as a whole, for the coordinator's `replacePersistentStore`,
/// `migratePersistentStore` and `destroyPersistentStore`: the database, its `-wal`, `-shm` and
/// `-journal` files, and the external binary data folder (`.<StoreName>_SUPPORT`).
extension SQLiteStore {
    /// The files SQLite keeps beside a database.
    private static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Removes the store at `url`: the database first, then its companions, then its support
    /// folder (a crash in between leaves files no store refers to, which a new store at `url`
    /// collects). Missing files are fine. Callable from any thread; the store must not be open.
    static func destroyFiles(at url: URL) throws {
        let manager = FileManager.default
        do {
            for path in [url.path] + companionSuffixes.map({ url.path + $0 }) where manager.fileExists(atPath: path) {
                try manager.removeItem(atPath: path)
            }
            let support = ExternalBinaryStorage.supportFolder(forStoreAt: url)
            if manager.fileExists(atPath: support.path) { try manager.removeItem(at: support) }
            try? ExternalBinaryStorage.syncPath(url.deletingLastPathComponent().path)
        } catch {
            throw StrataError.wrapping(error, while: "Destroying the store", url: url, defaultCode: StrataError.Code.persistentStoreOperation)
        }
    }

    /// Makes the store file at `destination` a copy of the one at `source`, with its external
    /// binary data files. Order, so that no crash leaves a reference without its file:
    /// 1. the source's write lock is taken (no writer, in any process, can add or remove a file
    ///    while it is held) and the database is copied as one consistent snapshot
    ///    (`VACUUM INTO` a temporary file beside `destination`, then fsynced);
    /// 2. every file of the source's folder is linked (or copied and fsynced) into the
    ///    destination's folder, which is fsynced; files already there stay;
    /// 3. the lock is released, the destination's old companions are removed and the temporary
    ///    file is renamed over `destination` (the folder is fsynced).
    /// Files of the destination's old contents that the copy does not refer to are orphans,
    /// collected when the destination is next opened. Throws when `source` is not a Strata
    /// store. Callable from any thread; `destination` must not be open.
    static func copyFiles(from source: URL, to destination: URL) throws {
        _ = try metadataOfStore(at: source)  // a Strata store, readable
        let manager = FileManager.default
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent("." + destination.lastPathComponent + ".strata-copy-" + UUID().uuidString)
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            var readOptions = SQLiteConfiguration()
            readOptions.readOnly = true
            let reader = try SQLiteConnection(path: source.path, configuration: readOptions)
            var mode = ""
            try reader.makeStatement("PRAGMA journal_mode").forEachRow { mode = $0.text(at: 0) ?? "" }
            // The write lock, when the source can be written (read-only media: nobody writes).
            var lockOptions = SQLiteConfiguration()
            lockOptions.journalMode = mode.lowercased() == "wal" ? .wal : .rollback
            let lock = try? SQLiteConnection(path: source.path, configuration: lockOptions)
            if let lock, !lock.isReadOnly { try lock.execute("BEGIN IMMEDIATE TRANSACTION") }
            defer { lock?.rollbackIgnoringErrors() }
            try reader.makeStatement("VACUUM INTO ?").execute([.text(temporary.path)])
            try ExternalBinaryStorage.syncPath(temporary.path)
            try copyExternalFolder(from: source, to: destination)
        } catch {
            try? manager.removeItem(at: temporary)
            throw StrataError.wrapping(error, while: "Copying the store at \(source.path)", url: destination, defaultCode: StrataError.Code.persistentStoreOperation)
        }
        do {
            for path in companionSuffixes.map({ destination.path + $0 }) where manager.fileExists(atPath: path) {
                try manager.removeItem(atPath: path)
            }
            guard rename(temporary.path, destination.path) == 0 else { throw ExternalBinaryStorage.posixError("renaming the copy to \(destination.path)") }
            try ExternalBinaryStorage.syncPath(directory.path)
        } catch {
            try? manager.removeItem(at: temporary)
            throw StrataError.wrapping(error, while: "Replacing the store", url: destination, defaultCode: StrataError.Code.persistentStoreOperation)
        }
    }

    /// Hook for migrations that build a new store file beside the old one and rename it over
    /// it (`Migration/MigrationManager+InPlace.swift`): links (or copies) every external data
    /// file of the store at `temporary` into the folder of the store at `url`, durably. Call it
    /// after the new store is closed and BEFORE the rename, so every reference of the new
    /// database has its file the moment it takes `url`'s place; afterwards remove the temporary
    /// store with ``destroyFiles(at:)`` (its database and its own `.<Name>_SUPPORT` folder).
    /// Files of the old store that the new one does not refer to are collected when the store
    /// is next opened, under the new model. Nothing is ever removed from `url`'s folder here.
    /// Callable from any thread.
    static func linkExternalData(ofStoreAt temporary: URL, intoStoreAt url: URL) throws {
        do {
            try copyExternalFolder(from: temporary, to: url)
        } catch {
            throw StrataError.wrapping(error, while: "Moving external binary data into the migrated store's folder", url: url, defaultCode: StrataError.Code.persistentStoreOperation)
        }
    }

    /// Links (or copies) every finished file of `source`'s external data folder into
    /// `destination`'s, durably; files of the same name already there are kept (same name, same
    /// bytes).
    private static func copyExternalFolder(from source: URL, to destination: URL) throws {
        let from = ExternalBinaryStorage.folder(forStoreAt: source)
        let to = ExternalBinaryStorage.folder(forStoreAt: destination)
        guard from.standardizedFileURL != to.standardizedFileURL else { return }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: from.path)) ?? []).filter(ExternalBinaryReference.isHash)
        guard !names.isEmpty else { return }
        let manager = FileManager.default
        if !manager.fileExists(atPath: to.path) {
            try manager.createDirectory(at: to, withIntermediateDirectories: true)
            try ExternalBinaryStorage.syncPath(to.deletingLastPathComponent().path)
            try ExternalBinaryStorage.syncPath(to.deletingLastPathComponent().deletingLastPathComponent().path)
        }
        for name in names.sorted() {
            let target = to.appendingPathComponent(name).path
            let origin = from.appendingPathComponent(name).path
            if let size = ExternalBinaryStorage.fileSize(target), size == ExternalBinaryStorage.fileSize(origin) { continue }
            let staging = target + ".tmp-" + UUID().uuidString
            // A hard link shares the (never modified) file; across file systems, a copy.
            if link(origin, staging) != 0 {
                try manager.copyItem(atPath: origin, toPath: staging)
                try ExternalBinaryStorage.syncPath(staging)
            }
            guard rename(staging, target) == 0 else {
                unlink(staging)
                throw ExternalBinaryStorage.posixError("renaming \(staging)")
            }
        }
        try ExternalBinaryStorage.syncPath(to.path)
    }
}
