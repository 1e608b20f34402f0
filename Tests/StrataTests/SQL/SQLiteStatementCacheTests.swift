import Foundation
import StrataSQLite
import Testing

/// A connection's cache of prepared statements (`SQLiteConnection.cachedStatement`) answers by
/// SQL text, whatever string holds it, and never hands out a statement it no longer holds: one
/// replaced because it was busy, or one evicted. (GRDB's `cachedStatement(sql:)` and SQLite's
/// own advice: prepare once, reset and rebind for each use.)
@Suite("SQLite statement cache")
struct SQLiteStatementCacheTests {
    private func connection(capacity: Int = 64) throws -> SQLiteConnection {
        var configuration = SQLiteConfiguration()
        configuration.statementCacheCapacity = capacity
        let connection = try SQLiteConnection(path: ":memory:", configuration: configuration)
        try connection.execute("CREATE TABLE t (a INTEGER)")
        try connection.execute("INSERT INTO t VALUES (1), (2), (3)")
        return connection
    }

    /// The same text, built twice (two separate strings), gets the one prepared statement.
    @Test func equalTextInAnotherStringFindsTheSameStatement() throws {
        let connection = try connection()
        let first = try connection.cachedStatement(["SELECT a FROM t", "WHERE a > ?"].joined(separator: " "))
        let second = try connection.cachedStatement("SELECT a FROM t " + String("WHERE a > ?"))
        #expect(first === second)
        #expect(try connection.cachedStatement("SELECT a FROM t WHERE a >= ?") !== first)
    }

    /// A statement still stepping is not handed out again: a fresh one replaces it in the cache,
    /// and from then on every string of that text gets the fresh one.
    @Test func aBusyStatementIsReplacedForEveryStringOfItsText() throws {
        let connection = try connection()
        let sql = ["SELECT a FROM t", "ORDER BY a"].joined(separator: " ")
        let busy = try connection.cachedStatement(sql)
        #expect(try busy.step())
        let fresh = try connection.cachedStatement(["SELECT a", "FROM t ORDER BY a"].joined(separator: " "))
        #expect(fresh !== busy)
        busy.reset()
        #expect(try connection.cachedStatement(sql) === fresh)
        var values: [Int64] = []
        try fresh.forEachRow { values.append($0.int64(at: 0)) }
        #expect(values == [1, 2, 3])
    }

    /// An evicted statement is prepared anew, also for the string it was found by before.
    @Test func anEvictedStatementIsPreparedAgain() throws {
        let connection = try connection(capacity: 2)
        let sql = ["SELECT a FROM t", "WHERE a = 1"].joined(separator: " ")
        let first = try connection.cachedStatement(sql)
        #expect(try connection.cachedStatement(sql) === first)
        _ = try connection.cachedStatement("SELECT a FROM t WHERE a = 2")
        _ = try connection.cachedStatement("SELECT a FROM t WHERE a = 3")
        let again = try connection.cachedStatement(sql)
        #expect(again !== first)
        var values: [Int64] = []
        try again.forEachRow { values.append($0.int64(at: 0)) }
        #expect(values == [1])
    }
}
