import Foundation
import StrataLocks
import StrataSQLite

/// Observers of the SQL a coordinator's stores run (used by test support to assert the exact
/// statements a call produced). Thread-safe.
package final class SQLObservers: Sendable {
    private let observers = StrataLock<[UUID: @Sendable (String) -> Void]>([:])

    package init() {}

    /// The option key under which a coordinator hands its observers to the stores it creates
    /// (internal: not a ``PersistentStoreOption``).
    static let optionKey = "_StrataSQLObservers"

    /// Adds an observer; returns a token to remove it.
    @discardableResult
    package func add(_ observer: @escaping @Sendable (String) -> Void) -> UUID {
        let id = UUID()
        observers.withLock { $0[id] = observer }
        return id
    }

    package func remove(_ id: UUID) {
        observers.withLock { $0[id] = nil }
    }

    func notify(_ sql: String) {
        let current = observers.withLock { Array($0.values) }
        for observer in current { observer(sql) }
    }

    var isEmpty: Bool { observers.withLock { $0.isEmpty } }
}

/// Installs the trace handler that implements `STRATA_SQL_DEBUG` and SQL recording.
enum SQLTracing {
    /// At `STRATA_SQL_DEBUG=3`, reports how many rows a fetch returned and how long reading them
    /// took (Core Data's "fetch execution time" lines).
    static func logRowCount(_ count: Int, of entityName: String, since start: DispatchTime) {
        guard DebugSettings.sqlDebugLevel >= 3 else { return }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000
        writeToStandardError("Strata: sql: fetched \(count) \(entityName) row(s) in " + String(format: "%.3f ms", milliseconds))
    }

    static func install(on connection: SQLiteConnection, observers: SQLObservers, forced: Bool) {
        let level = DebugSettings.sqlDebugLevel
        guard level > 0 || forced else { return }
        connection.setTraceHandler(expandingArguments: level >= 2) { event in
            if level > 0 {
                let milliseconds = Double(event.nanoseconds) / 1_000_000
                var line = "Strata: sql: " + (level >= 2 ? event.expandedSQL : event.sql)
                line += String(format: "\nStrata: sql: %.3f ms", milliseconds)
                writeToStandardError(line)
            }
            observers.notify(event.sql)
        }
    }
}
