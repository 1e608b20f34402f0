import Foundation
import StrataPostgreSQL
import Testing

/// `transaction(isolation:readOnly:_:)`: BEGIN at the chosen isolation, COMMIT or ROLLBACK.
@Suite("PostgreSQL transactions", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLTransactionTests {
    struct Abandon: Error {}

    /// A transaction that throws is rolled back: what it wrote is gone, for this connection and
    /// for another one, and the connection is out of the transaction.
    @Test func rolledBackTransactionLeavesNothing() throws {
        let connection = try PostgreSQLTestServer.connect()
        let other = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("rollback")
        try connection.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY)")
        defer { _ = try? connection.execute("DROP TABLE IF EXISTS \(table)") }
        #expect(throws: Abandon.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO \(table) VALUES (1), (2)")
                #expect(connection.transactionStatus == .inTransaction)
                throw Abandon()
            }
        }
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 0)
        #expect(try other.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 0)
        let kept = try connection.transaction { try connection.execute("INSERT INTO \(table) VALUES (3)").rowsAffected }
        #expect(kept == 1)
        #expect(try other.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 1)
    }

    /// `BEGIN ISOLATION LEVEL …` sets the transaction's isolation, which `SHOW
    /// transaction_isolation` prints in lower case; `READ ONLY` sets `transaction_read_only`.
    @Test(arguments: PostgreSQLIsolationLevel.allCases)
    func isolationLevelIsSet(_ level: PostgreSQLIsolationLevel) throws {
        let connection = try PostgreSQLTestServer.connect()
        let shown = try connection.transaction(isolation: level) {
            try connection.execute("SHOW transaction_isolation").first?.string(0)
        }
        #expect(shown == level.settingValue)
        let readOnly = try connection.transaction(isolation: level, readOnly: true) {
            try connection.execute("SHOW transaction_read_only").first?.string(0)
        }
        #expect(readOnly == "on")
        #expect(try connection.execute("SHOW transaction_isolation").first?.string(0) == "read committed")
    }

    /// After a failed statement PostgreSQL refuses every statement of the transaction (25P02) and
    /// answers COMMIT with the tag ROLLBACK, not an error: a body that swallowed the error must
    /// not look committed.
    @Test func commitAfterAFailedStatementThrows() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("aborted")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY)")
        var statusAfterFailure: PostgreSQLTransactionStatus?
        var refusal: PostgreSQLError?
        let error = try #require(
            #expect(throws: PostgreSQLError.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO \(table) VALUES (1)")
                    _ = try? connection.execute("INSERT INTO \(table) VALUES (1)")
                    statusAfterFailure = connection.transactionStatus
                    do { try connection.execute("SELECT 1") } catch let error as PostgreSQLError { refusal = error }
                }
            })
        #expect(statusAfterFailure == .inFailedTransaction)
        #expect(refusal?.sqlState == PostgreSQLError.SQLState.inFailedTransaction)
        #expect(error.kind == .transactionAborted)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 0)
    }

    /// Transactions do not nest (PostgreSQL warns and ignores a second BEGIN): Strata refuses it.
    @Test func nestedTransactionIsRefused() throws {
        let connection = try PostgreSQLTestServer.connect()
        let error = try #require(
            #expect(throws: PostgreSQLError.self) {
                try connection.transaction { try connection.transaction { () } }
            })
        #expect(error.kind == .invalidArgument)
        #expect(connection.transactionStatus == .idle)
    }

    /// Two SERIALIZABLE transactions that each read what the other writes cannot both commit:
    /// one fails with 40001 (serialization_failure), which `isTransactionRetryable` names.
    @Test func serializationFailureIsRetryable() throws {
        let first = try PostgreSQLTestServer.connect()
        let second = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("serial")
        try first.execute("CREATE TABLE \(table) (id int8 PRIMARY KEY, class int8)")
        defer { _ = try? first.execute("DROP TABLE IF EXISTS \(table)") }
        try first.execute("INSERT INTO \(table) VALUES (1, 1), (2, 2)")
        var failures: [PostgreSQLError] = []
        do {
            try first.transaction(isolation: .serializable) {
                _ = try first.execute("SELECT sum(id) FROM \(table) WHERE class = 1")
                do {
                    try second.transaction(isolation: .serializable) {
                        _ = try second.execute("SELECT sum(id) FROM \(table) WHERE class = 2")
                        try second.execute("INSERT INTO \(table) VALUES (3, 1)")
                    }
                } catch let error as PostgreSQLError {
                    failures.append(error)
                }
                try first.execute("INSERT INTO \(table) VALUES (4, 2)")
            }
        } catch let error as PostgreSQLError {
            failures.append(error)
        }
        #expect(failures.count == 1)
        #expect(failures.first?.sqlState == PostgreSQLError.SQLState.serializationFailure)
        #expect(failures.first?.isTransactionRetryable == true)
    }
}
