import BenchmarkHarness
import CSQLite
import Foundation

/// The row digests both sides of an item pair compute: every attribute of every item they saw.
enum ItemDigest {
    /// Adds one item's five attribute values to `digest`.
    @inline(__always)
    static func add(name: String, number: Int64, score: Double, flag: Bool, created: Double, to digest: inout RowDigest) {
        var row = RowHasher()
        row.combine(name)
        row.combine(number)
        row.combine(score)
        row.combine(flag)
        row.combine(created)
        digest.add(row)
    }

    /// Adds a typed item.
    @inline(__always)
    static func add(_ item: Item, to digest: inout RowDigest) {
        add(name: item.name, number: item.number, score: item.score, flag: item.flag, created: item.created.timeIntervalSinceReferenceDate, to: &digest)
    }

    /// Adds a raw row.
    @inline(__always)
    static func add(_ item: RawItem, to digest: inout RowDigest) {
        add(name: item.name, number: item.number, score: item.score, flag: item.flag, created: item.created, to: &digest)
    }

    /// The digest of every `ZITEM` row of the file at `url`, read with raw SQLite (to check what a
    /// side wrote, outside the measurement).
    static func ofStore(_ url: URL) throws -> RowDigest {
        let db = try RawDatabase(path: url.path)
        let select = try db.prepare("SELECT ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM")
        defer { sqlite3_finalize(select) }
        var digest = RowDigest()
        while sqlite3_step(select) == SQLITE_ROW {
            add(
                name: select.text(0), number: sqlite3_column_int64(select, 1), score: sqlite3_column_double(select, 2),
                flag: sqlite3_column_int64(select, 3) != 0, created: sqlite3_column_double(select, 4), to: &digest)
        }
        return digest
    }
}
