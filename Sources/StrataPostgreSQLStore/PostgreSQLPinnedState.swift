import Foundation
import Strata
import StrataLocks
import StrataPostgreSQL

/// A pinned query generation of a PostgreSQL store: a connection of its own (outside the pool)
/// holding a `REPEATABLE READ READ ONLY` transaction, whose snapshot every read through the
/// generation uses, so a pinned context sees the store as it was when pinned whatever other
/// contexts and servers save. ``release()`` rolls the transaction back and closes the
/// connection; reads after it see the current state (through the pool).
///
/// Each pinned generation holds one server connection until it is released.
///
/// Thread-safe: made on one thread, read through and released on others; the connection is
/// used by one caller at a time, under `lock`.
final class PostgreSQLPinnedState: PinnedStoreState, @unchecked Sendable {
    // @unchecked Sendable: `connection` (not Sendable itself) is read and written only inside
    // `lock.withLock`, so one thread at a time uses it.
    private let lock = StrataLock(())
    /// The snapshot's connection; nil once released. Guarded by `lock`.
    private var connection: PostgreSQLConnection?

    /// Opens a connection to `configuration` and takes its snapshot (`BEGIN ISOLATION LEVEL
    /// REPEATABLE READ READ ONLY` and a first statement, which fixes the snapshot). Throws
    /// `PostgreSQLError`.
    init(configuration: PostgreSQLConfiguration) throws {
        let connection = try PostgreSQLConnection(configuration: configuration)
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try connection.execute("SELECT 1")
        self.connection = connection
    }

    /// Runs `body` with the snapshot's connection, or returns nil after ``release()``. Blocks
    /// while another thread reads through the same generation.
    func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T? {
        try lock.withLock { _ in
            guard let connection else { return nil }
            return try body(connection)
        }
    }

    /// Ends the transaction and closes the connection (once; later calls do nothing).
    func release() {
        lock.withLock { _ in
            connection?.rollbackIgnoringErrors()
            connection = nil
        }
    }
}
