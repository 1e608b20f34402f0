import Foundation
import StrataPostgreSQL
import Testing

/// Broken connections (a session the server ends: `pg_terminate_backend`, a restart) and the
/// connection pool.
@Suite("PostgreSQL broken connections and the pool", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLPoolTests {
    /// `pg_terminate_backend` ends a session: its client sees FATAL 57P01 (admin_shutdown) or a
    /// closed socket, and libpq's `PQstatus` becomes `CONNECTION_BAD`. `checkConnection()` sees it
    /// without a statement, a statement fails with `connectionLost`, and `reset()` reconnects to
    /// a new server process.
    @Test func killedConnectionIsDetectedAndReset() throws {
        let connection = try PostgreSQLTestServer.connect()
        let processID = connection.serverProcessID
        try PostgreSQLTestServer.terminate(processID: processID)
        #expect(connection.checkConnection() == false)
        #expect(!connection.isConnected)
        let error = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") })
        #expect(error.kind == .connectionLost)
        #expect(error.isConnectionError)
        try connection.reset()
        #expect(connection.isConnected)
        #expect(connection.serverProcessID != processID)
        #expect(try connection.execute("SELECT 2").first?.int64(0) == 2)
    }

    /// The same, noticed by the statement itself: the first statement after the kill fails
    /// with `connectionLost` (libpq reads the server's 57P01 or finds the socket closed).
    @Test func statementOnAKilledConnectionFails() throws {
        let connection = try PostgreSQLTestServer.connect()
        try PostgreSQLTestServer.terminate(processID: connection.serverProcessID)
        let error = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1") })
        #expect(error.kind == .connectionLost)
        #expect(error.sqlState == nil || error.sqlState == PostgreSQLError.SQLState.adminShutdown)
        #expect(!connection.isConnected)
    }

    /// A pooled connection the server ended while it was idle is replaced when next lent: the
    /// caller gets a working connection to a new server process, not an error.
    @Test func poolReplacesAConnectionKilledWhileIdle() throws {
        let pool = try PostgreSQLConnectionPool(configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1)
        let first = try pool.withConnection { $0.serverProcessID }
        #expect(pool.idleConnections == 1)
        try PostgreSQLTestServer.terminate(processID: first)
        let (second, value) = try pool.withConnection { connection in
            (connection.serverProcessID, try connection.execute("SELECT 3").first?.int64(0))
        }
        #expect(second != first)
        #expect(value == 3)
        #expect(pool.openConnections == 1)
        #expect(pool.connectionsOpened == 2)
    }

    /// A connection that breaks while lent is closed when it comes back, and its place is free.
    @Test func poolDropsAConnectionThatBrokeWhileLent() throws {
        let pool = try PostgreSQLConnectionPool(configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1)
        let error = try #require(
            #expect(throws: PostgreSQLError.self) {
                try pool.withConnection { connection in
                    try PostgreSQLTestServer.terminate(processID: connection.serverProcessID)
                    try connection.execute("SELECT 1")
                }
            })
        #expect(error.kind == .connectionLost)
        #expect(pool.openConnections == 0)
        #expect(try pool.withConnection { try $0.execute("SELECT 4").first?.int64(0) } == 4)
    }

    /// A connection that comes back inside a transaction is rolled back first.
    @Test func poolRollsBackAnOpenTransaction() throws {
        let pool = try PostgreSQLConnectionPool(configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1)
        try pool.withConnection { connection in
            try connection.execute("BEGIN")
            try connection.execute("CREATE TEMP TABLE pool_leftover (id int)")
        }
        let (status, tableGone) = try pool.withConnection { connection in
            (connection.transactionStatus, try connection.execute("SELECT to_regclass('pg_temp.pool_leftover') IS NULL").first?.bool(0))
        }
        #expect(status == .idle)
        #expect(tableGone == true)
    }

    /// When every connection is lent, a caller waits at most `checkoutTimeout`, then gets
    /// `poolTimeout`; it never hangs.
    @Test func exhaustedPoolTimesOut() throws {
        let pool = try PostgreSQLConnectionPool(
            configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1, checkoutTimeout: .milliseconds(300))
        try pool.withConnection { _ in
            let started = ContinuousClock.now
            let error = try #require(#expect(throws: PostgreSQLError.self) { try pool.withConnection { _ in () } })
            let elapsed = ContinuousClock.now - started
            #expect(error.kind == .poolTimeout)
            #expect(elapsed >= .milliseconds(290))
            #expect(elapsed < .seconds(5))
        }
        #expect(try pool.withConnection { try $0.execute("SELECT 5").first?.int64(0) } == 5)
    }

    /// A waiting caller gets the connection as soon as its holder gives it back (on another
    /// thread), before its own timeout.
    @Test func waitingCallerGetsAReturnedConnection() throws {
        let pool = try PostgreSQLConnectionPool(
            configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1, checkoutTimeout: .seconds(10))
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? pool.withConnection { _ in
                holding.signal()
                Thread.sleep(forTimeInterval: 0.3)
            }
            done.signal()
        }
        holder.start()
        holding.wait()
        let started = ContinuousClock.now
        let value = try pool.withConnection { try $0.execute("SELECT 6").first?.int64(0) }
        let elapsed = ContinuousClock.now - started
        done.wait()
        #expect(value == 6)
        #expect(elapsed < .seconds(5))
        #expect(pool.openConnections == 1)
    }

    /// Several threads sharing a pool of two never hold more than two connections, and all get served.
    @Test func concurrentCallersShareABoundedPool() throws {
        let pool = try PostgreSQLConnectionPool(
            configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 2, checkoutTimeout: .seconds(20))
        let group = DispatchGroup()
        let failures = Counter()
        for worker in 0..<6 {
            group.enter()
            Thread {
                for round in 0..<5 {
                    do {
                        let value = try pool.withConnection { try $0.execute("SELECT $1::int8", parameters: [.int64(Int64(worker * 10 + round))]).first?.int64(0) }
                        if value != Int64(worker * 10 + round) { failures.increment() }
                    } catch {
                        failures.increment()
                    }
                    if pool.openConnections > 2 { failures.increment() }
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failures.value == 0)
        #expect(pool.openConnections <= 2)
        #expect(pool.connectionsOpened <= 2)
    }

    /// After `close()`, checkouts fail with `poolClosed`.
    @Test func closedPoolRefuses() throws {
        let pool = try PostgreSQLConnectionPool(configuration: PostgreSQLConfiguration(url: PostgreSQLTestServer.url()), maximumConnections: 1)
        _ = try pool.withConnection { $0.serverProcessID }
        pool.close()
        #expect(pool.openConnections == 0)
        let error = try #require(#expect(throws: PostgreSQLError.self) { try pool.withConnection { _ in () } })
        #expect(error.kind == .poolClosed)
    }

    /// A pool whose server cannot be reached reports the opening error and keeps no place taken.
    @Test func unreachableServerFailsCheckoutAndFreesThePlace() throws {
        let url = PostgreSQLTestServer.url(port: try SilentListener.closedPort())
        let pool = try PostgreSQLConnectionPool(configuration: PostgreSQLConfiguration(url: url), maximumConnections: 1)
        for _ in 0..<2 {
            let error = try #require(#expect(throws: PostgreSQLError.self) { try pool.withConnection { _ in () } })
            #expect(error.kind == .connectionFailed)
        }
        #expect(pool.openConnections == 0)
    }
}

/// A thread-safe counter for the tests' worker threads.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is read and written only under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
