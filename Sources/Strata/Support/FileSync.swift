import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Making a file's bytes, or the names in a folder, durable: `fsync(2)` on the file or folder
/// itself. Shared by external binary storage (Stores/SQLite/ExternalBinaryStorage.swift) and the
/// migrations that swap store files (Migration/). Callable from any thread.
enum FileSync {
    /// fsyncs the file or folder at `path`. A failure is a ``StrataError`` with `code` whose
    /// message is `"<context>: syncing <path> failed: <strerror> (errno N)"` (or "opening").
    static func sync(_ path: String, code: Int, context: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error("opening \(path)", code: code, context: context) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw error("syncing \(path)", code: code, context: context) }
    }

    /// The error for a failed POSIX call, read from `errno` now.
    static func error(_ doing: String, code: Int, context: String) -> StrataError {
        let number = errno
        return StrataError(code: code, message: "\(context): \(doing) failed: \(String(cString: strerror(number))) (errno \(number))")
    }
}
