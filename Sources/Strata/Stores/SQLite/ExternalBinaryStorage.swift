import Foundation
import StrataLocks

#if canImport(Glibc)
import Glibc
#endif

// External binary storage: values of attributes with `allowsExternalBinaryDataStorage` whose
// size reaches the store's threshold (`PersistentStoreOption.externalBinaryDataThreshold`,
// default 100 KB) live in files in `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` beside a SQLite store,
// each named by the SHA-256 of its bytes, and the row holds a reference (the TEXT value described
// in `SQL/ExternalBinaryStatements.swift`). Users' guide: docs/models-and-migration.md, "External
// binary storage".
//
// Crash guarantees (in write order):
// 1. Inside the write transaction (the SQLite write lock held), before the row that refers to
//    it is written: the bytes go to `<hash>.tmp-<uuid>`, which is fsynced, renamed to `<hash>`,
//    and the folder is fsynced. A crash here leaves a temporary file or an unreferenced file.
// 2. The transaction commits. A crash before the commit leaves the store unchanged; the files
//    of step 1 are orphans.
// 3. After the commit, a second write transaction checks each reference the first one dropped
//    (and each file it wrote, for a rolled-back one) against every reference column and unlinks
//    the files nothing refers to; while a reader of this process is in use (it may hold an
//    older snapshot) the check waits for a later write, the close or the next open. A crash
//    here leaves orphans, never a reference without a file.
// Orphans and temporary files are collected when the store is next opened (on the writer,
// before the store is handed out), and after batch deletes, batch updates and upserting batch
// inserts (which do not say which values they dropped). Every collection runs inside a write
// transaction, so no other writer — in this process or another — has a file written but not yet
// committed while it looks.
//
// Hooks for migration (Sources/Strata/Migration, Stores/SQLite/SQLiteStore+Migration.swift):
// - `SQLiteStore.externalReferenceColumns(for:)` names every `(table, column)` that may hold
//   references for a model: binary-data and transformable attribute columns, flagged or not.
//   Copy those values untouched (`INSERT … SELECT`, a row copy): a reference names its file by
//   content, so it stays valid in any row of any table of the same store file.
//   `ExternalBinaryReference.hash(in:)` tells a reference from an inline value, and
//   `SQLiteStore.externalDataFolder(forStoreAt:)` is where the files are.
// - A migration that builds a new store file beside the old one and renames it over it calls
//   `SQLiteStore.linkExternalData(ofStoreAt:intoStoreAt:)` before the rename (the new store
//   wrote its files to its own folder), then `SQLiteStore.destroyFiles(at:)` on the temporary
//   store (`SQLiteStore+Files.swift`).
// - Files are removed only by an open `SQLiteStore` (the open's `collectExternalOrphans()`,
//   the sweeps after its writes), that is only after `SQLiteStore.init` has run
//   `migrateIfNeeded` (when asked) and `prepareSchema` has checked that the file's version
//   hashes equal the model's (a mismatch throws first, and nothing is collected). A store
//   being migrated is opened under its old model only as a whole, compatible store, and the
//   migration code's own connections (`migrateInPlace`, the dry run, `MigrationManager`) never
//   remove files: no removal ever runs under a schema other than the file's, so none can see
//   "no references" and delete everything (Core Data's bug, where a migration dropped and
//   re-created this folder). Never delete or re-create the folder in a migration; files may
//   only be added to it.

/// The files of one SQLite store's external binary data: writing (durably, before the
/// referencing transaction commits), reading, and removing. Used on the store's writer (writes,
/// removals: under the SQLite write lock) and on any reader thread (reads). Thread-safe.
final class ExternalBinaryStorage: Sendable {
    /// The default threshold: Core Data keeps values of about 100 KB and more in files.
    static let defaultThreshold = 100 * 1024

    /// `_EXTERNAL_DATA` beside the store.
    let folder: URL
    /// Values at least this large (bytes) of flagged attributes go to files.
    let threshold: Int
    /// References dropped and files written by the write transactions since the last sweep
    /// (checked and removed after they commit or roll back).
    private let pending = StrataLock(PendingRemovals())

    struct PendingRemovals: Sendable {
        var candidates: Set<String> = []
        /// A batch request dropped references it did not name: compare every file.
        var sweepsAll = false
        var isEmpty: Bool { candidates.isEmpty && !sweepsAll }
    }

    init(storeURL: URL, threshold: Int) {
        self.folder = Self.folder(forStoreAt: storeURL)
        self.threshold = max(1, threshold)
    }

    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside the store file at `url` (`StoreName`: the
    /// file name without its extension, as Core Data names the folder).
    static func folder(forStoreAt url: URL) -> URL {
        supportFolder(forStoreAt: url).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
    }

    /// `.<StoreName>_SUPPORT` beside the store file at `url`.
    static func supportFolder(forStoreAt url: URL) -> URL {
        let name = url.deletingPathExtension().lastPathComponent
        return url.deletingLastPathComponent().appendingPathComponent("." + name + "_SUPPORT", isDirectory: true)
    }

    // MARK: Pending removals

    /// Records a hash to check after the current write transaction ends.
    func noteCandidate(_ hash: String) {
        pending.withLock { _ = $0.candidates.insert(hash) }
    }

    /// Records that the current write transaction dropped references it cannot name.
    func noteSweepAll() {
        pending.withLock { $0.sweepsAll = true }
    }

    /// Takes the recorded candidates (call on the writer, inside the sweep's transaction).
    func takePending() -> PendingRemovals {
        pending.withLock { pending in
            defer { pending = PendingRemovals() }
            return pending
        }
    }

    /// Whether candidates wait for a sweep.
    var hasPending: Bool { pending.withLock { !$0.isEmpty } }

    // MARK: Files

    func fileURL(hash: String) -> URL { folder.appendingPathComponent(hash, isDirectory: false) }

    /// Whether the folder exists (one `stat`).
    var folderExists: Bool { FileManager.default.fileExists(atPath: folder.path) }

    /// Writes `data` as the file named by its hash, durably (temporary file, fsync, rename,
    /// folder fsync), unless a file of that name and size is there already; returns the hash.
    /// Call inside the write transaction that will refer to it.
    func write(_ data: Data) throws -> String {
        let hash = SHA256.hexDigest(data)
        try prepareFolder()
        let destination = fileURL(hash: hash)
        if let size = Self.fileSize(destination.path), size == data.count { return hash }
        let temporary = folder.appendingPathComponent(hash + ".tmp-" + UUID().uuidString, isDirectory: false)
        do {
            try Self.writeSynced(data, to: temporary.path)
            guard rename(temporary.path, destination.path) == 0 else { throw Self.posixError("renaming \(temporary.lastPathComponent)") }
            try Self.syncPath(folder.path)
        } catch {
            unlink(temporary.path)
            throw StrataError.wrapping(error, while: "Writing external binary data", url: folder, defaultCode: StrataError.Code.persistentStoreSave)
        }
        noteCandidate(hash)  // removed again if the transaction rolls back
        return hash
    }

    /// The bytes of the file named `hash`. Throws a clear error when it is missing or unreadable.
    func read(hash: String) throws -> Data {
        let url = fileURL(hash: hash)
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StrataError(
                code: StrataError.Code.coreData,
                message:
                    "The external binary data file \(url.path) that a row refers to cannot be read (\(error.localizedDescription)); it was removed outside Strata, or another process replaced the value after this read began (fetch again)"
            )
        }
    }

    /// The names in the folder: finished files (hashes) and temporary ones.
    func listFiles() -> (files: [String], temporary: [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return ([], []) }
        var files: [String] = []
        var temporary: [String] = []
        for name in names {
            if ExternalBinaryReference.isHash(name) {
                files.append(name)
            } else if name.count > 64, ExternalBinaryReference.isHash(String(name.prefix(64))), name.dropFirst(64).hasPrefix(".tmp-") {
                temporary.append(name)
            }
        }
        return (files, temporary)
    }

    /// Removes the files named in `names` (missing ones are fine); the folder is fsynced after.
    /// Call only under the write lock, with no reference to them committed.
    func remove(_ names: [String]) {
        guard !names.isEmpty else { return }
        for name in names { unlink(folder.appendingPathComponent(name).path) }
        try? Self.syncPath(folder.path)
    }

    // MARK: POSIX

    /// Creates the folder when missing (it may also have been removed since the last write),
    /// fsyncing the folders whose entries changed. Called under the write lock.
    private func prepareFolder() throws {
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        let support = folder.deletingLastPathComponent()
        let parent = support.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.syncPath(support.path)
        try Self.syncPath(parent.path)
    }

    static func fileSize(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    private static func writeSynced(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw posixError("creating \(path)") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw posixError("writing \(path)")
                }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw posixError("syncing \(path)") }
    }

    /// fsyncs a directory, so the names created or removed in it are durable (or a file, so its
    /// bytes are).
    static func syncPath(_ path: String) throws {
        try FileSync.sync(path, code: StrataError.Code.persistentStoreSave, context: "External binary data")
    }

    static func posixError(_ doing: String) -> StrataError {
        FileSync.error(doing, code: StrataError.Code.persistentStoreSave, context: "External binary data")
    }
}
