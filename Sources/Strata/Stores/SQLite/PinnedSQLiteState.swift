import Foundation
import StrataSQLite

/// A held read transaction on a reader connection of its own: a query generation of a SQLite
/// store. Thread-safe: the connection is used under `lock`.
final class PinnedSQLiteState: PinnedStoreState, @unchecked Sendable {
    // @unchecked Sendable: the connection is only touched under `lock`.
    private var connection: SQLiteConnection?
    private let lock = NSLock()
    /// Told once, when the generation is released (the pool counts pinned generations).
    private var onRelease: (@Sendable () -> Void)?

    init(connection: SQLiteConnection, onRelease: (@Sendable () -> Void)? = nil) {
        self.connection = connection
        self.onRelease = onRelease
    }

    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard let connection else {
            throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "The query generation was released")
        }
        return try body(connection)
    }

    func release() {
        lock.lock()
        connection?.rollbackIgnoringErrors()
        connection = nil
        let released = onRelease
        onRelease = nil
        lock.unlock()
        released?()
    }

    deinit { release() }
}
