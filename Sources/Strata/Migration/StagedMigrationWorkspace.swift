import Foundation
import StrataSQLite

/// A copy of a SQLite store in a hidden folder beside it, where a custom migration stage runs,
/// and the atomic swap that puts the finished copy in the store's place.
///
/// The copy is made with `VACUUM INTO` after a checkpoint (one file, no WAL). The swap
/// checkpoints and closes the copy, fsyncs it, removes the original's empty WAL and shared
/// memory files, renames the copy over the original and fsyncs the folder: a crash before the
/// rename leaves the original (and a leftover folder, removed by the next migration), after it
/// the migrated store. The store's external-data folder is linked into the workspace, so that
/// the copy reads the same files.
struct StagedMigrationWorkspace {
    static let folderPrefix = ".strata-staged-"
    let originalURL: URL
    let folderURL: URL
    var copyURL: URL { folderURL.appendingPathComponent(originalURL.lastPathComponent) }

    init(copying url: URL) throws {
        originalURL = url
        folderURL = url.deletingLastPathComponent().appendingPathComponent(Self.folderPrefix + UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: folderURL, withIntermediateDirectories: false)
        do {
            do {
                let connection = try SQLiteConnection(path: url.path)
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                try connection.execute("VACUUM INTO '\(copyURL.path.replacingOccurrences(of: "'", with: "''"))'")
            }
            try ExternalDataLocation.linkFolder(of: url, into: folderURL)
        } catch {
            discard()
            throw error
        }
    }

    /// Puts the finished copy in the original's place.
    func replaceOriginal() throws {
        do {
            // Closed at the end of this scope: the copy is one complete file before the rename.
            let connection = try SQLiteConnection(path: copyURL.path)
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try Self.fsync(copyURL.path)
        for suffix in ["-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: originalURL.path + suffix)
        }
        guard rename(copyURL.path, originalURL.path) == 0 else {
            throw StrataError(code: StrataError.Code.migration, message: "Replacing the store with its migrated copy failed: \(String(cString: strerror(errno)))", url: originalURL)
        }
        try Self.fsync(originalURL.deletingLastPathComponent().path)
    }

    private static func fsync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw StrataError(code: StrataError.Code.migration, message: "Opening \(path) to sync it failed: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard Foundation.fsync(descriptor) == 0 else {
            throw StrataError(code: StrataError.Code.migration, message: "Syncing \(path) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the workspace folder (never the linked external-data folder's contents).
    func discard() {
        Self.removeFolder(folderURL)
    }

    /// Removes workspaces a crash left beside the store at `url`.
    static func removeLeftovers(beside url: URL) {
        let folder = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(folderPrefix) {
            removeFolder(folder.appendingPathComponent(name))
        }
    }

    /// Removes a workspace folder: its symbolic links first (unlinked, so that nothing behind
    /// them is touched), then the rest.
    private static func removeFolder(_ folder: URL) {
        let manager = FileManager.default
        for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let path = folder.appendingPathComponent(name).path
            if (try? manager.destinationOfSymbolicLink(atPath: path)) != nil { unlink(path) }
        }
        try? manager.removeItem(at: folder)
    }
}
