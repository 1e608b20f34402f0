import Foundation

/// Debug switches read once from the environment at first use.
///
/// - `STRATA_CONCURRENCY_DEBUG=1`: every context and object access checks that it runs on the
///   context's queue and traps with a message naming the context and the call if not (Core
///   Data's `-com.apple.CoreData.ConcurrencyDebug 1`).
/// - `STRATA_SQL_DEBUG=1…3`: prints each SQL statement and its time on standard error; level 2
///   adds bound values, level 3 adds each fetch's row count (Core Data's `SQLDebug`).
enum DebugSettings {
    static let concurrencyChecks: Bool = {
        guard let value = ProcessInfo.processInfo.environment["STRATA_CONCURRENCY_DEBUG"] else { return false }
        return value != "0" && !value.isEmpty
    }()

    static let sqlDebugLevel: Int = {
        guard let value = ProcessInfo.processInfo.environment["STRATA_SQL_DEBUG"] else { return 0 }
        return min(3, max(0, Int(value) ?? 1))
    }()
}

/// Writes one line to standard error without buffering.
func writeToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
