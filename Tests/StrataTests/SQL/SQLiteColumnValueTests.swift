import Foundation
import StrataSQLite
import Testing

/// A column read with `SQLiteStatement.value(at:)` comes back in the storage class SQLite holds
/// it in, whatever the column's declared type (SQLite's dynamic typing: a column's affinity
/// converts what it can on insert and keeps the rest as given), with the payload exactly as
/// stored. (`value(at:)` reads the column once, through `sqlite3_column_value`.)
@Suite("SQLite column values")
struct SQLiteColumnValueTests {
    private func values(_ select: String, on connection: SQLiteConnection) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        let statement = try connection.cachedStatement(select)
        try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        return rows
    }

    /// Values of every storage class, in columns of every affinity (which converts what it can
    /// on insert), read back in the class SQLite holds them in, payload intact; SQLite's
    /// `typeof()` names the same class.
    @Test func everyStorageClassReadsAsStored() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (n INTEGER, r REAL, s TEXT, b BLOB)")
        try connection.execute("INSERT INTO t VALUES (42, 1.5, 'text', x'00ff10')")
        try connection.execute("INSERT INTO t VALUES (NULL, NULL, NULL, NULL)")
        try connection.execute("INSERT INTO t VALUES ('abc', 'xyz', 7, 2.25)")
        try connection.execute("INSERT INTO t VALUES (1.5, 3, '', x'')")
        try connection.execute("INSERT INTO t VALUES (-9223372036854775808, -2.5e-300, 'é…\u{1F600}', zeroblob(3))")
        let rows = try values("SELECT n, r, s, b FROM t ORDER BY rowid", on: connection)
        #expect(rows[0] == [.integer(42), .real(1.5), .text("text"), .blob(Data([0, 255, 16]))])
        #expect(rows[1] == [.null, .null, .null, .null])
        // TEXT affinity turns 7 into '7'; a BLOB column keeps 2.25 as a real; an INTEGER column
        // keeps 'abc' as text, and a REAL column turns 3 into 3.0.
        #expect(rows[2] == [.text("abc"), .text("xyz"), .text("7"), .real(2.25)])
        #expect(rows[3] == [.real(1.5), .real(3), .text(""), .blob(Data())])
        #expect(rows[4][0] == .integer(.min))
        #expect(rows[4][1] == .real(-2.5e-300))
        #expect(rows[4][2] == .text("é…\u{1F600}"))
        #expect(rows[4][3] == .blob(Data(count: 3)))
        let types = try values("SELECT typeof(n), typeof(r), typeof(s), typeof(b) FROM t ORDER BY rowid", on: connection)
        for (row, names) in zip(rows, types) {
            #expect(row.map(\.storageClassName) == names.map { if case .text(let name) = $0 { return name } else { return "?" } })
        }
    }

    /// Text that is not valid UTF-8 reads with each bad byte replaced (U+FFFD), not as bytes
    /// cut short; in a UTF-16 database SQLite converts the text to UTF-8 for the read.
    @Test func textIsReadAsUTF8() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (s TEXT)")
        try connection.execute("INSERT INTO t VALUES (CAST(x'61ff62' AS TEXT))")
        #expect(try values("SELECT s FROM t", on: connection) == [[.text("a\u{FFFD}b")]])

        let utf16 = try SQLiteConnection(path: ":memory:")
        try utf16.execute("PRAGMA encoding = 'UTF-16le'")
        try utf16.execute("CREATE TABLE t (s TEXT)")
        try utf16.execute("INSERT INTO t VALUES ('naïve \u{1F600}')")
        #expect(try values("SELECT s FROM t", on: utf16) == [[.text("naïve \u{1F600}")]])
    }

    /// `optionalInt64(at:)` is nil for NULL only: 0 is a value, and other storage classes
    /// convert as `sqlite3_column_int64` converts them.
    @Test func optionalIntegerTellsNullFromZero() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (k)")
        try connection.execute("INSERT INTO t VALUES (NULL), (0), (17), (2.75), ('12')")
        var keys: [Int64?] = []
        try connection.cachedStatement("SELECT k FROM t ORDER BY rowid").forEachRow { keys.append($0.optionalInt64(at: 0)) }
        #expect(keys == [nil, 0, 17, 2, 12])
    }

    /// `text(at:)` and `blob(at:)` are nil for NULL only: empty text and a zero-length blob are
    /// values, and other storage classes convert as `sqlite3_column_text` and
    /// `sqlite3_column_blob` convert them (a number to its text; text to its UTF-8 bytes).
    @Test func textAndBlobTellNullFromEmpty() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t (v)")
        try connection.execute("INSERT INTO t VALUES (NULL), (''), (x''), ('héllo'), (x'00ff'), (42), (1.5), (zeroblob(2))")
        var texts: [String?] = []
        var blobs: [Data?] = []
        try connection.cachedStatement("SELECT v FROM t ORDER BY rowid").forEachRow { texts.append($0.text(at: 0)) }
        try connection.cachedStatement("SELECT v FROM t ORDER BY rowid").forEachRow { blobs.append($0.blob(at: 0)) }
        #expect(texts == [nil, "", "", "héllo", "\0\u{FFFD}", "42", "1.5", "\0\0"])
        #expect(blobs == [nil, Data(), Data(), Data("héllo".utf8), Data([0, 255]), Data("42".utf8), Data("1.5".utf8), Data(count: 2)])
    }
}
