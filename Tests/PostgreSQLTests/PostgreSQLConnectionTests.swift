import Foundation
import StrataPostgreSQL
import Testing

/// Connecting, statements with parameters, and reading every value type back, on the throwaway
/// server (`PostgreSQLTestServer`).
@Suite("PostgreSQL connection: statements and values", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLConnectionTests {
    /// libpq opens a connection from a `postgresql://` URI (libpq's "Connection Strings"); the
    /// server answers `SELECT` with rows in text format and `PQcmdStatus` gives the command tag.
    @Test func connectsAndRunsASimpleQuery() throws {
        let connection = try PostgreSQLTestServer.connect()
        #expect(connection.isConnected)
        #expect(connection.serverVersion >= 140000)
        #expect(connection.serverProcessID > 0)
        let result = try connection.execute("SELECT 1 + 1 AS two, 'strata' AS name, current_setting('client_encoding') AS encoding")
        #expect(result.count == 1)
        #expect(result.columnNames == ["two", "name", "encoding"])
        #expect(result.commandTag == "SELECT 1")
        #expect(try result[0].int64("two") == 2)
        #expect(try result[0].string(1) == "strata")
        #expect(try result[0].string("encoding") == "UTF8")
    }

    /// `PQexecParams` sends `$n` parameters apart from the SQL text; a NULL parameter is a NULL
    /// pointer, and a NULL column reads back as nil (`PQgetisnull`).
    @Test func parametersAndNulls() throws {
        let connection = try PostgreSQLTestServer.connect()
        let row = try #require(
            try connection.execute(
                "SELECT $1::int8 + 1 AS next, $2::text IS NULL AS missing, $3::text AS echo, $4::text AS nothing, $5::bool AS flag",
                parameters: [41, .null, "it's \"quoted\"; DROP TABLE x; --", .null, true]
            ).first)
        #expect(try row.int64("next") == 42)
        #expect(try row.bool("missing") == true)
        #expect(try row.string("echo") == "it's \"quoted\"; DROP TABLE x; --")
        #expect(try row.string("nothing") == nil)
        #expect(try row.isNull("nothing"))
        #expect(try row.int64("nothing") == nil)
        #expect(try row.value("nothing") == .null)
        #expect(try row.bool("flag") == true)

        let table = PostgreSQLTestServer.uniqueTableName("params")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY, note text)")
        let insert = try connection.execute("INSERT INTO \(table) VALUES ($1, $2), ($3, $4)", parameters: [1, "one", 2, .null])
        #expect(insert.rowsAffected == 2)
        #expect(insert.commandTag == "INSERT 0 2")
        let nulls = try connection.execute("SELECT id FROM \(table) WHERE note IS NOT DISTINCT FROM $1", parameters: [.null])
        #expect(try nulls.map { try $0.int64(0) } == [2])
    }

    /// Each type's text output format (PostgreSQL's "Data Types" chapter): `int8` decimal,
    /// `float8` shortest exact digits (`extra_float_digits` 1 by default since 12) with
    /// `Infinity`/`NaN`, `numeric` exact decimal text, `bool` `t`/`f`, `timestamptz` in the
    /// session's `TimeZone` with microseconds, `uuid` lower-case, `bytea` hex; `client_encoding`
    /// UTF8 carries any Unicode text.
    @Test func everyValueTypeRoundTrips() throws {
        let connection = try PostgreSQLTestServer.connect()
        try connection.execute("SET TimeZone = 'UTC'")
        let table = PostgreSQLTestServer.uniqueTableName("types")
        try connection.execute(
            "CREATE TEMP TABLE \(table) (k int8 PRIMARY KEY, t text, i int8, f float8, n numeric, b bool, ts timestamptz, u uuid, by bytea)")
        let text = "Grüße, 世界 🎉 — 'single' \"double\" \\ back\tslash"
        let uuid = UUID()
        let bytes = Data((0...255).map(UInt8.init) + [0, 0])
        let numeric = "12345678901234567890.123456789012345678"
        let doubles: [Double] = [0.1, -0.0, 1e308, .leastNonzeroMagnitude, .infinity, -.infinity, .nan, Double(Int64.max)]
        for (key, double) in doubles.enumerated() {
            try connection.execute(
                "INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                parameters: [
                    .int64(Int64(key)), .text(text), .int64(key.isMultiple(of: 2) ? Int64.min : Int64.max), .double(double), .text(numeric),
                    .bool(key.isMultiple(of: 2)), "2024-02-29 23:59:59.123456+00", .uuid(uuid), .bytes(key == 0 ? Data() : bytes),
                ])
        }
        try connection.execute("INSERT INTO \(table) (k) VALUES (100)")
        let rows = try connection.execute("SELECT * FROM \(table) ORDER BY k")
        #expect(rows.count == doubles.count + 1)
        for (key, double) in doubles.enumerated() {
            let row = rows[key]
            #expect(try row.string("t") == text)
            #expect(try row.int64("i") == (key.isMultiple(of: 2) ? Int64.min : Int64.max))
            let read = try #require(try row.double("f"))
            #expect(read.bitPattern == double.bitPattern || (read.isNaN && double.isNaN), "float8 \(double) read back as \(read)")
            #expect(try row.string("n") == numeric)
            #expect(try row.bool("b") == key.isMultiple(of: 2))
            #expect(try row.string("ts") == "2024-02-29 23:59:59.123456+00")
            #expect(try row.uuid("u") == uuid)
            #expect(try row.data("by") == (key == 0 ? Data() : bytes))
        }
        #expect(try rows[0].value("by") == .bytes(Data()))
        #expect(try rows[1].value("u") == .uuid(uuid))
        #expect(try rows[1].value("i") == .int64(Int64.max))
        #expect(try rows[1].value("n") == .text(numeric))
        let empty = rows[doubles.count]
        for column in ["t", "i", "f", "n", "b", "ts", "u", "by"] {
            #expect(try empty.isNull(column))
            #expect(try empty.value(column) == .null)
        }
        let epoch = try connection.execute("SELECT extract(epoch FROM ts)::float8 FROM \(table) WHERE k = 0")
        #expect(try epoch.first?.double(0) == 1_709_251_199.123456)
    }

    /// A column's text that is not of the asked type, or a column that does not exist, throws a
    /// conversion error instead of trapping or guessing.
    @Test func readingTheWrongTypeThrows() throws {
        let connection = try PostgreSQLTestServer.connect()
        let row = try #require(try connection.execute("SELECT 'abc' AS word, 1.5::numeric AS half").first)
        #expect(throws: PostgreSQLError.self) { try row.int64("word") }
        #expect(throws: PostgreSQLError.self) { try row.int64("half") }
        #expect(try row.double("half") == 1.5)
        #expect(throws: PostgreSQLError.self) { try row.string("missing") }
        #expect(throws: PostgreSQLError.self) { try row.string(7) }
        let error = #expect(throws: PostgreSQLError.self) { try row.bool("word") }
        #expect(error?.kind == .conversion)
    }

    /// Integers are read straight from the column's bytes: every form PostgreSQL prints for
    /// `int2`/`int4`/`int8` (its "Numeric Types": optional minus, digits), the 64-bit limits, and
    /// text holding an integer in another form (`+7`) as before; anything else, or a value beyond
    /// 64 bits, throws; `isNull` reads no text.
    @Test func integersAreReadExactly() throws {
        let connection = try PostgreSQLTestServer.connect()
        let row = try #require(
            try connection.execute(
                "SELECT (-9223372036854775808)::int8 AS low, 9223372036854775807::int8 AS high, 0::int2 AS zero, (-0)::int4 AS minus_zero, '+7' AS plus, '9223372036854775808' AS beyond, '-' AS sign, '' AS empty, NULL::int8 AS nothing, '12a' AS mixed"
            ).first)
        #expect(try row.int64("low") == Int64.min)
        #expect(try row.int64("high") == Int64.max)
        #expect(try row.int64("zero") == 0)
        #expect(try row.int64("minus_zero") == 0)
        #expect(try row.int64("plus") == 7)
        #expect(try row.int64("nothing") == nil)
        #expect(try row.isNull("nothing"))
        #expect(try !row.isNull("zero"))
        for name in ["beyond", "sign", "empty", "mixed"] {
            #expect(throws: PostgreSQLError.self, "\(name)") { try row.int64(name) }
        }
    }

    /// PostgreSQL text cannot hold U+0000 ("invalid byte sequence for encoding UTF8: 0x00"), and
    /// libpq reads parameters and SQL as C strings that would end there: both are refused.
    @Test func nulCharactersAreRefused() throws {
        let connection = try PostgreSQLTestServer.connect()
        let parameter = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT $1::text", parameters: ["a\u{0}b"]) }
        #expect(parameter?.kind == .invalidArgument)
        let sql = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT 1\u{0}; DROP TABLE x") }
        #expect(sql?.kind == .invalidArgument)
        #expect(try connection.execute("SELECT 1").count == 1)
    }

    /// `PQexec` runs several statements of one text in one implicit transaction (libpq's
    /// "Command Execution Functions"): a failing statement undoes the ones before it.
    @Test func scriptsRunSeveralStatementsAtomically() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("script")
        try connection.executeScript("CREATE TEMP TABLE \(table) (id int PRIMARY KEY); INSERT INTO \(table) VALUES (1); INSERT INTO \(table) VALUES (2)")
        #expect(throws: PostgreSQLError.self) { try connection.executeScript("INSERT INTO \(table) VALUES (3); INSERT INTO \(table) VALUES (1)") }
        #expect(try connection.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 2)
    }

    /// A quoted identifier may be a reserved key word and keeps its case; a double quote inside
    /// is doubled (PostgreSQL's "Identifiers and Key Words").
    @Test func reservedWordsWorkAsQuotedIdentifiers() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = try PostgreSQLIdentifier.quoted("order")
        let group = try PostgreSQLIdentifier.quoted("group")
        let user = try PostgreSQLIdentifier.quoted("user")
        let odd = try PostgreSQLIdentifier.quoted("Mixed \"Case\"")
        try connection.execute("CREATE TEMP TABLE \(table) (\(group) int8 PRIMARY KEY, \(user) text, \(odd) text)")
        try connection.execute("INSERT INTO \(table) (\(group), \(user), \(odd)) VALUES ($1, $2, $3)", parameters: [7, "ann", "x"])
        let row = try #require(try connection.execute("SELECT \(group), \(user), \(odd) FROM \(table) WHERE \(group) = $1", parameters: [7]).first)
        #expect(try row.int64("group") == 7)
        #expect(try row.string("user") == "ann")
        #expect(try row.string("Mixed \"Case\"") == "x")
        // Unquoted, the same words are syntax errors.
        let error = #expect(throws: PostgreSQLError.self) { try connection.execute("SELECT group FROM \(table)") }
        #expect(error?.sqlState == PostgreSQLError.SQLState.syntaxError)
    }
}

/// Identifier quoting alone (no server).
@Suite("PostgreSQL identifiers")
struct PostgreSQLIdentifierTests {
    /// Double quotes around, inner double quotes doubled; NAMEDATALEN − 1 = 63 bytes at most.
    @Test func quoting() throws {
        #expect(try PostgreSQLIdentifier.quoted("order") == "\"order\"")
        #expect(try PostgreSQLIdentifier.quoted("a\"b") == "\"a\"\"b\"")
        #expect(try PostgreSQLIdentifier.quoted("Ünïcödé") == "\"Ünïcödé\"")
        #expect(try PostgreSQLIdentifier.quoted(String(repeating: "x", count: 63)).count == 65)
        for bad in ["", String(repeating: "x", count: 64), "a\u{0}b", String(repeating: "é", count: 32)] {
            let error = #expect(throws: PostgreSQLError.self) { try PostgreSQLIdentifier.quoted(bad) }
            #expect(error?.kind == .invalidArgument)
        }
    }
}
