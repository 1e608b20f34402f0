import CLibPQ

/// The isolation level of a transaction (PostgreSQL's "Transaction Isolation"; READ UNCOMMITTED
/// behaves as READ COMMITTED there, so it is not offered).
public enum PostgreSQLIsolationLevel: String, Sendable, CaseIterable {
    /// Each statement sees what was committed before it began (PostgreSQL's default).
    case readCommitted = "READ COMMITTED"
    /// Every statement sees the snapshot taken at the transaction's first statement; a write to
    /// a row changed since fails with 40001.
    case repeatableRead = "REPEATABLE READ"
    /// As if transactions ran one after another; a transaction that could break that fails with 40001.
    case serializable = "SERIALIZABLE"

    /// The value `SHOW transaction_isolation` prints for it (`read committed`, …).
    public var settingValue: String { rawValue.lowercased() }
}

extension PostgreSQLConnection {
    /// Runs `body` in a transaction at `isolation`: `BEGIN ISOLATION LEVEL …`, then `COMMIT` when
    /// `body` returns, `ROLLBACK` when it throws (the error is rethrown).
    ///
    /// Throws `PostgreSQLError` with kind `transactionAborted` (SQLSTATE 25P02) when a statement of
    /// the transaction failed and `body` caught the error and returned anyway: PostgreSQL then
    /// answers `COMMIT` by rolling back, which libpq reports as success. A failing `COMMIT`
    /// (40001 at SERIALIZABLE, a deferred constraint) throws its error; nothing was committed.
    /// Transactions do not nest: calling this inside one throws `invalidArgument`. Blocks the
    /// calling thread; use the connection from one thread at a time.
    public func transaction<T>(isolation: PostgreSQLIsolationLevel = .readCommitted, readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        guard transactionStatus == .idle else {
            throw PostgreSQLError(
                kind: .invalidArgument, message: "a transaction is already open on this connection (transactions do not nest)", activity: "beginning a transaction")
        }
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)" + (readOnly ? " READ ONLY" : ""))
        let value: T
        do {
            value = try body()
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        let commit: PostgreSQLResult
        do {
            commit = try execute("COMMIT")
        } catch {
            rollbackIgnoringErrors()
            throw error
        }
        guard commit.commandTag == "COMMIT" else {
            throw PostgreSQLError(
                kind: .transactionAborted, sqlState: PostgreSQLError.SQLState.inFailedTransaction,
                message: "the transaction was rolled back instead of committed: one of its statements had failed", activity: "committing a transaction",
                sql: "COMMIT")
        }
        return value
    }

    /// Rolls back the open transaction, if any. Errors are ignored: the connection may be broken
    /// (the server then ended the transaction itself).
    public func rollbackIgnoringErrors() {
        switch transactionStatus {
        case .inTransaction, .inFailedTransaction:
            if let result = PQexec(handle, "ROLLBACK") { PQclear(result) }
        case .idle, .active, .unknown:
            break
        }
    }
}
