import Foundation
import StrataPostgreSQL
import Testing

/// `executeCached(_:parameters:)`: a statement prepared once per connection, text and parameter
/// types, then only executed — what drivers such as pgJDBC do after a few runs, so the server
/// parses and plans a text once. PostgreSQL's own rules it leans on: a session's prepared
/// statements are listed in `pg_prepared_statements`, live until `DEALLOCATE` or the session's
/// end (not undone by `ROLLBACK`), and one whose result row type changed is refused with 0A000.
@Suite("PostgreSQL statement cache", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLStatementCacheTests {
    /// The names of the statements the cache prepared on `connection`'s session.
    static func cachedNames(_ connection: PostgreSQLConnection) throws -> [String] {
        try connection.execute("SELECT name FROM pg_prepared_statements WHERE name LIKE 'strata_cached_%' ORDER BY name").compactMap { try $0.string(0) }
    }

    /// Same rows as `execute(_:parameters:)`, every run; one prepared statement per text and
    /// parameter types (a NULL, sent untyped, is another statement than an integer).
    @Test func preparedOncePerTextAndTypes() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("cached")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY, note text)")
        for id in 1...20 { try connection.execute("INSERT INTO \(table) VALUES ($1, $2)", parameters: [.int64(Int64(id)), .text("note \(id)")]) }
        let select = "SELECT note FROM \(table) WHERE id = $1"
        for id in 1...20 {
            let cached = try connection.executeCached(select, parameters: [.int64(Int64(id))])
            let direct = try connection.execute(select, parameters: [.int64(Int64(id))])
            #expect(try cached.first?.string(0) == "note \(id)")
            #expect(try cached.first?.string(0) == direct.first?.string(0))
        }
        #expect(try Self.cachedNames(connection).count == 1)
        #expect(try connection.executeCached(select, parameters: [.null]).isEmpty)
        #expect(try Self.cachedNames(connection).count == 2)
        // Writes return their command status as through `execute`.
        let update = try connection.executeCached("UPDATE \(table) SET note = $2 WHERE id = $1", parameters: [.int64(3), .text("three")])
        #expect(update.rowsAffected == 1)
        #expect(try connection.executeCached(select, parameters: [.int64(3)]).first?.string(0) == "three")
    }

    /// At most 100 statements stay on the server; the one used longest ago goes first.
    @Test func boundedByLeastRecentUse() throws {
        let connection = try PostgreSQLTestServer.connect()
        try connection.executeCached("SELECT 0 AS kept")
        for index in 1...120 {
            try connection.executeCached("SELECT \(index) AS n")
            if index % 10 == 0 { try connection.executeCached("SELECT 0 AS kept") }  // kept in use
        }
        let names = try Self.cachedNames(connection)
        #expect(names.count == 100)
        // The first statement, used all along, is still the one prepared first.
        #expect(names.contains("strata_cached_1"))
        #expect(try connection.executeCached("SELECT 0 AS kept").first?.int64(0) == 0)
        #expect(try Self.cachedNames(connection).count == 100)
    }

    /// `reset()` starts a session without the statements: the cache prepares them again.
    @Test func resetForgetsStatements() throws {
        let connection = try PostgreSQLTestServer.connect()
        #expect(try connection.executeCached("SELECT $1::int8 + 1", parameters: [.int64(1)]).first?.int64(0) == 2)
        try connection.reset()
        #expect(try Self.cachedNames(connection).isEmpty)
        #expect(try connection.executeCached("SELECT $1::int8 + 1", parameters: [.int64(2)]).first?.int64(0) == 3)
        #expect(try Self.cachedNames(connection).count == 1)
    }

    /// A statement the server no longer has (26000), or whose result type changed under it
    /// (0A000), is prepared again and run once more outside a transaction; inside one the
    /// error ends the transaction and is thrown, and the next run outside prepares afresh.
    @Test func staleStatementsArePreparedAgain() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("stale")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY, note text)")
        try connection.execute("INSERT INTO \(table) VALUES (1, 'one')")
        let select = "SELECT * FROM \(table) WHERE id = $1"
        #expect(try connection.executeCached(select, parameters: [1]).first?.string(1) == "one")
        try connection.execute("DEALLOCATE ALL")
        #expect(try connection.executeCached(select, parameters: [1]).first?.string(1) == "one")
        try connection.execute("ALTER TABLE \(table) ADD COLUMN extra int8 DEFAULT 7")
        let widened = try #require(try connection.executeCached(select, parameters: [1]).first)
        #expect(try widened.int64(2) == 7)
        try connection.execute("ALTER TABLE \(table) DROP COLUMN extra")
        let inTransaction = try #require(
            #expect(throws: PostgreSQLError.self) {
                try connection.transaction { try connection.executeCached(select, parameters: [1]) }
            })
        #expect(inTransaction.sqlState == PostgreSQLError.SQLState.featureNotSupported)
        #expect(connection.transactionStatus == .idle)
        #expect(try connection.executeCached(select, parameters: [1]).first?.string(1) == "one")
        #expect(try Self.cachedNames(connection).count == 1)
    }

    /// Errors come through as from `execute`: the server's for bad SQL (nothing is cached),
    /// `invalidArgument` for a NUL; the connection stays usable.
    @Test func errors() throws {
        let connection = try PostgreSQLTestServer.connect()
        let syntax = try #require(#expect(throws: PostgreSQLError.self) { try connection.executeCached("SELEC $1", parameters: [1]) })
        #expect(syntax.sqlState == PostgreSQLError.SQLState.syntaxError)
        #expect(try Self.cachedNames(connection).isEmpty)
        let nul = try #require(#expect(throws: PostgreSQLError.self) { try connection.executeCached("SELECT $1::text", parameters: ["a\u{0}b"]) })
        #expect(nul.kind == .invalidArgument)
        #expect(try connection.executeCached("SELECT $1::text", parameters: ["ab"]).first?.string(0) == "ab")
    }
}

/// Doubles read back exactly: `PostgreSQLRow.double` reads a short decimal from the column's
/// bytes and leaves the rest to a full parse, and both must give the double that was stored
/// (PostgreSQL 12 and later print a `float8` in its shortest exact form).
@Suite("PostgreSQL doubles", .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLDoubleReadTests {
    @Test func doublesRoundTrip() throws {
        let connection = try PostgreSQLTestServer.connect()
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, -0.0, 1, -1, 12.5, 600, 0.1, 0.3, 1e22, 1e23, 1e-22, 1.5e-7, 9_007_199_254_740_992, 9_007_199_254_740_994, 123_456_789_012_345_680,
            .greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity, 4.35, 0.000_001, 99.99, 1_234.5678,
        ]
        for index in 0..<300 {
            values.append(Double(index % 10_000) / 100)
            values.append(Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 1_000)
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
        }
        values = values.filter { !$0.isNaN }
        let table = PostgreSQLTestServer.uniqueTableName("doubles")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8, value float8)")
        for (index, value) in values.enumerated() {
            try connection.executeCached("INSERT INTO \(table) VALUES ($1, $2)", parameters: [.int64(Int64(index)), .double(value)])
        }
        for row in try connection.execute("SELECT id, value FROM \(table) ORDER BY id") {
            let index = try #require(try row.int64(0))
            let read = try #require(try row.double(1))
            let expected = values[Int(index)]
            let text = try #require(try row.string(1))
            #expect(read.bitPattern == expected.bitPattern, "\(text) read as \(read), stored \(expected)")
            #expect(read.bitPattern == Double(text)?.bitPattern)
        }
        let nan = try #require(try connection.execute("SELECT 'NaN'::float8").first?.double(0))
        #expect(nan.isNaN)
    }
}
