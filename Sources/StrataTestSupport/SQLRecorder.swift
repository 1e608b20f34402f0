import Foundation
import Strata
import StrataLocks
import StrataSQLite

/// Records every SQL statement a coordinator's stores run (stores must be added with
/// `PersistentStoreOption.recordsSQL: true`, which ``TestStack`` does), so a test can assert
/// the exact statements a call produced. Thread-safe.
public final class SQLRecorder: Sendable {
    private final class Log: Sendable {
        let statements = StrataLock<[String]>([])
    }

    private let log = Log()
    private let coordinator: PersistentStoreCoordinator
    private let token: UUID

    /// Starts recording the statements of `coordinator`'s stores.
    public init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        let log = self.log
        token = coordinator.sqlObservers.add { sql in log.statements.withLock { $0.append(sql) } }
    }

    deinit { coordinator.sqlObservers.remove(token) }

    /// The statements recorded so far, in order.
    public var recorded: [String] { log.statements.withLock { $0 } }

    /// Forgets what was recorded.
    public func clear() { log.statements.withLock { $0.removeAll() } }

    /// Runs `body` and returns the statements it ran (excluding transaction control statements
    /// when `includingTransactions` is false).
    public func statements(during body: () throws -> Void, includingTransactions: Bool = false) rethrows -> [String] {
        clear()
        try body()
        let all = recorded
        if includingTransactions { return all }
        return all.filter { !Self.isTransactionControl($0) }
    }

    /// Whether `sql` is BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE.
    public static func isTransactionControl(_ sql: String) -> Bool {
        let upper = sql.trimmingCharacters(in: .whitespaces).uppercased()
        return upper.hasPrefix("BEGIN") || upper.hasPrefix("COMMIT") || upper.hasPrefix("ROLLBACK")
            || upper.hasPrefix("SAVEPOINT") || upper.hasPrefix("RELEASE")
    }
}

extension SQLRecorder {
    /// The reads among `statements` (those that begin with SELECT), in order. Safe on any thread.
    public static func selects(_ statements: [String]) -> [String] { statements.filter { $0.hasPrefix("SELECT") } }
}
