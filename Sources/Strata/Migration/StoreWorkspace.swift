import Foundation
import StrataSQLite

#if canImport(Glibc)
import Glibc
#endif

/// A hidden folder beside a SQLite store holding a copy of it, where a custom stage of a staged
/// migration builds the store's next version, and the swap that puts the result in the store's
/// place.
///
/// External binary data: the workspace gets its own `.<StoreName>_SUPPORT/_EXTERNAL_DATA`
/// folder holding hard links to the store's files, so the copy reads every value while nothing
/// done in the workspace (a delete, an orphan collection of a store opened there) can remove a
/// file the original still refers to. Files written in the workspace join the store's folder
/// before the swap.
///
/// The swap: the result is checkpointed and closed, fsynced; new external files are linked into
/// the store's folder and the folder fsynced; the original's WAL and shared-memory files (empty
/// after the checkpoint the workspace began with) are removed; the result is renamed over the
/// original and the parent folder fsynced. A crash before the rename leaves the original
/// complete (and unreferenced files, collected on its next open, and a leftover workspace,
/// removed by the next migration); after it, the new store complete with all its files (and the
/// workspace folder until it is removed, by the next open at the latest).
struct StoreWorkspace {
    /// Workspaces of the store at `url` are named `.strata-migration-<file name>-<UUID>`.
    static func folderPrefix(for url: URL) -> String { ".strata-migration-\(url.lastPathComponent)-" }
    /// The store being migrated.
    let originalURL: URL
    /// The workspace folder.
    let folderURL: URL
    /// The store file in the workspace (same name as the original).
    var storeURL: URL { folderURL.appendingPathComponent(originalURL.lastPathComponent) }

    /// Creates the workspace beside the store at `url`: a copy of the store (`VACUUM INTO` after
    /// a checkpoint: one file) and links to its external files.
    init(copying url: URL) throws {
        originalURL = url
        folderURL = url.deletingLastPathComponent().appendingPathComponent(Self.folderPrefix(for: url) + UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: false)
        do {
            do {
                // The connection closes at the end of this scope.
                let connection = try SQLiteConnection(path: url.path)
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try connection.execute("VACUUM INTO '\(storeURL.path.replacingOccurrences(of: "'", with: "''"))'")
            }
            try SQLiteStore.linkExternalData(ofStoreAt: url, intoStoreAt: storeURL)
        } catch {
            discard()
            throw error
        }
    }

    /// Puts the workspace's store in the original's place (see the type's comment).
    func replaceOriginal() throws {
        do {
            let connection = try SQLiteConnection(path: storeURL.path)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try Self.fsync(storeURL.path)
        try SQLiteStore.linkExternalData(ofStoreAt: storeURL, intoStoreAt: originalURL)
        for suffix in ["-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: originalURL.path + suffix)
        }
        guard rename(storeURL.path, originalURL.path) == 0 else {
            throw StrataError(code: StrataError.Code.migration, message: "Replacing the store with its migrated version failed: \(String(cString: strerror(errno)))", url: originalURL)
        }
        try Self.fsync(originalURL.deletingLastPathComponent().path)
    }

    /// Removes the workspace (its links only: the store's files stay).
    func discard() {
        try? FileManager.default.removeItem(at: folderURL)
    }

    /// Removes workspaces a crash left beside the store at `url`.
    static func removeLeftovers(beside url: URL) {
        for workspace in folders(beside: url) {
            try? FileManager.default.removeItem(at: workspace)
        }
    }

    /// Removes the workspaces beside the store at `url` whose swap was done: their store file
    /// was renamed over the original, and a crash before ``discard()`` left the folder. The
    /// store is then at its new version and needs no migration, which would remove them
    /// (``removeLeftovers(beside:)``). A workspace that still holds its store file may be a
    /// migration running in another process, and is left alone.
    static func removeFinished(beside url: URL) {
        for workspace in folders(beside: url) where !FileManager.default.fileExists(atPath: workspace.appendingPathComponent(url.lastPathComponent).path) {
            try? FileManager.default.removeItem(at: workspace)
        }
    }

    /// The workspace folders beside the store at `url` (none when its folder cannot be read).
    private static func folders(beside url: URL) -> [URL] {
        let folder = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        let prefix = folderPrefix(for: url)
        return names.filter { $0.hasPrefix(prefix) }.map { folder.appendingPathComponent($0, isDirectory: true) }
    }

    private static func fsync(_ path: String) throws {
        try FileSync.sync(path, code: StrataError.Code.migration, context: "Staged migration")
    }
}
