import Foundation
import StrataSQLite

/// Clear errors for stores that cannot be written where they lie (read-only media, a folder or
/// file without write permission). SQLite's own messages ("unable to open database file",
/// "attempt to write a readonly database") do not say why or what to do.
///
/// - A rollback-journal store there opens with `PersistentStoreOption.readOnly`; without the
///   option Strata refuses to add it (134080) instead of failing at the first save.
/// - A WAL store there cannot be opened at all: SQLite must create its `-shm` file beside it.
extension SQLiteStore {
    /// The error for a connection that could not be opened: SQLite's, or for a WAL store whose
    /// folder is not writable, one that says so (134080 with the SQLite code kept).
    static func openError(_ error: SQLiteError, url: URL) -> StrataError {
        var result = StrataError.sqlite(error, while: "Opening the store", url: url, defaultCode: StrataError.Code.persistentStoreOpen)
        let folder = url.deletingLastPathComponent().path
        // 14: SQLITE_CANTOPEN.
        if error.code == 14, FileManager.default.fileExists(atPath: url.path),
            !FileManager.default.isWritableFile(atPath: folder), usesWriteAheadLog(url)
        {
            result.message =
                "The store uses write-ahead logging (WAL) and its folder is read-only (read-only media or no write permission): SQLite cannot open a WAL store there because it must create the -shm file beside it. Copy the store to writable storage, or switch it to the rollback journal (PersistentStoreOption.journalMode \"DELETE\") before putting it on read-only media; such a store opens with PersistentStoreOption.readOnly"
        }
        return result
    }

    /// The error for a store file SQLite could only open read-only although the store was not
    /// added read-only.
    static func readOnlyFileError(url: URL) -> StrataError {
        StrataError(
            code: StrataError.Code.persistentStoreOpen,
            message: "The store file is read-only (read-only media, or no write permission on the file or its folder): add the store with PersistentStoreOption.readOnly = true to read it",
            url: url)
    }

    /// Whether the file's header says WAL (file format versions 2 at offsets 18 and 19).
    static func usesWriteAheadLog(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[header.startIndex + 18] == 2 && header[header.startIndex + 19] == 2
    }
}
