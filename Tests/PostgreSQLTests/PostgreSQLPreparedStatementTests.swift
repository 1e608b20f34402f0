import Foundation
import StrataPostgreSQL
import Testing

/// Prepared statements (`PQprepare` / `PQexecPrepared`): prepared once, run many times with new
/// parameters, bound to the connection and session that prepared them.
@Suite("PostgreSQL prepared statements", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLPreparedStatementTests {
    /// The server infers parameter types from the statement (a column assigned or compared), so
    /// every value kind goes in and comes back as it does through `PQexecParams`; NULL, empty
    /// text and empty `bytea` stay apart.
    @Test func preparedOnceRunManyTimes() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("prepared")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY, note text, score float8, flag bool, bytes bytea, ident uuid)")
        let insert = try connection.prepare("INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6)")
        #expect(insert.name.hasPrefix("strata_"))
        #expect(insert.sql.hasPrefix("INSERT INTO"))
        let ident = UUID()
        try connection.transaction {
            for id in 1...100 {
                let result = try connection.execute(insert, parameters: [.int64(Int64(id)), .text("note \(id)"), .double(Double(id) / 3), .bool(id % 2 == 0), .bytes(Data([UInt8(id)])), .uuid(ident)])
                #expect(result.rowsAffected == 1)
            }
            try connection.execute(insert, parameters: [101, .null, .null, .null, .null, .null])
            try connection.execute(insert, parameters: [102, "", -0.0, false, .bytes(Data()), .null])
        }
        let select = try connection.prepare("SELECT note, score, flag, bytes, ident FROM \(table) WHERE id = $1")
        #expect(select.name != insert.name)
        for id in [1, 50, 99] {
            let row = try #require(try connection.execute(select, parameters: [.int64(Int64(id))]).first)
            #expect(try row.string(0) == "note \(id)")
            #expect(try row.double(1) == Double(id) / 3)
            #expect(try row.bool(2) == (id % 2 == 0))
            #expect(try row.data(3) == Data([UInt8(id)]))
            #expect(try row.uuid(4) == ident)
        }
        let nulls = try #require(try connection.execute(select, parameters: [101]).first)
        #expect(try (0..<5).allSatisfy { try nulls.isNull($0) })
        let empty = try #require(try connection.execute(select, parameters: [102]).first)
        #expect(try empty.string(0) == "")
        #expect(try empty.double(1)?.sign == .minus)
        #expect(try empty.data(3) == Data())
        #expect(try connection.execute(select, parameters: [1000]).isEmpty)
        let count = try connection.prepare("SELECT count(*) FROM \(table) WHERE id > $1::bigint", name: "count above")
        #expect(count.name == "count above")
        #expect(try connection.execute(count, parameters: [90]).first?.int64(0) == 12)
    }

    /// The server's errors come through: SQL it rejects at `PQprepare` (42601), a name already
    /// prepared in the session (42P05), the wrong number of parameters (08P01), a statement
    /// deallocated (26000); text holding a NUL never reaches it. The connection stays usable.
    @Test func serverErrors() throws {
        let connection = try PostgreSQLTestServer.connect()
        let syntax = try #require(#expect(throws: PostgreSQLError.self) { try connection.prepare("SELEC $1") })
        #expect(syntax.sqlState == "42601")
        #expect(syntax.sql == "SELEC $1")
        let statement = try connection.prepare("SELECT $1::int8 + 1", name: "plus one")
        let duplicate = try #require(#expect(throws: PostgreSQLError.self) { try connection.prepare("SELECT 1", name: "plus one") })
        #expect(duplicate.sqlState == "42P05")
        let arity = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute(statement, parameters: [1, 2]) })
        #expect(arity.sqlState == "08P01")
        let text = try connection.prepare("SELECT $1::text")
        let nul = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute(text, parameters: ["a\u{0}b"]) })
        #expect(nul.kind == .invalidArgument)
        #expect(try connection.execute(statement, parameters: [41]).first?.int64(0) == 42)
        try connection.deallocate(statement)
        let gone = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute(statement, parameters: [41]) })
        #expect(gone.sqlState == "26000")
        #expect(try connection.execute("SELECT 1").count == 1)
    }

    /// A statement belongs to its connection and session: another connection, or the same one
    /// after `reset()` (the server forgot it), refuses it without a round trip; preparing again works.
    @Test func boundToConnectionAndSession() throws {
        let connection = try PostgreSQLTestServer.connect()
        let other = try PostgreSQLTestServer.connect()
        let statement = try connection.prepare("SELECT $1::int8 * 2")
        let foreign = try #require(#expect(throws: PostgreSQLError.self) { try other.execute(statement, parameters: [2]) })
        #expect(foreign.kind == .invalidArgument)
        #expect(foreign.message.contains("another connection"))
        try connection.reset()
        let stale = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute(statement, parameters: [2]) })
        #expect(stale.kind == .invalidArgument)
        #expect(stale.message.contains("reset"))
        let again = try connection.prepare("SELECT $1::int8 * 2")
        #expect(try connection.execute(again, parameters: [21]).first?.int64(0) == 42)
    }
}
