import Foundation
import Strata

/// Every table of a SQLite file as lines — its schema, its rows (sorted), and the model version
/// hash its metadata records — read with plain SQL (rolling back a hot journal first), so that
/// two files can be compared whatever their model. The migration parts of the harness use it to
/// tell "before the migration" from "after" and from anything in between.
public enum StoreFileFingerprint {
    /// The lines of the file at `url`.
    public static func lines(_ url: URL) throws -> [String] {
        let db = try RawSQLite(path: url.path, readWrite: true)
        var lines = ["integrity " + (try db.rows("PRAGMA integrity_check").compactMap { $0.first?.text }.joined(separator: "; "))]
        let objects = try db.rows("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        for object in objects {
            lines.append("\(object[0].text ?? "?") \(object[1].text ?? "?"): \(object[2].text ?? "")")
        }
        for object in objects where object[0].text == "table" {
            guard let name = object[1].text else { continue }
            if name == "Z_METADATA" {
                lines.append("metadata " + metadataHash(db))
                continue
            }
            let rows = try db.rows("SELECT * FROM \"\(name)\"").map { row in row.map(render).joined(separator: "|") }
            lines += rows.sorted().map { "\(name) \($0)" }
        }
        return lines
    }

    /// The first line where `found` and `expected` differ, for a report.
    public static func difference(_ found: [String], _ expected: [String]) -> String {
        for (a, b) in zip(found, expected) where a != b { return "found \(a.prefix(160)), expected \(b.prefix(160))" }
        return "found \(found.count) lines, expected \(expected.count)"
    }

    private static func metadataHash(_ db: RawSQLite) -> String {
        guard let blob = try? db.rows("SELECT Z_PLIST FROM Z_METADATA").first?.first?.data,
            let plist = try? PropertyListSerialization.propertyList(from: blob, options: [], format: nil) as? [String: Any]
        else { return "unreadable" }
        return plist[StoreMetadataKey.modelVersionHash] as? String ?? "no hash"
    }

    private static func render(_ value: RawSQLite.Value) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .text(let text): return "'" + text + "'"
        case .blob(let data): return "x\(data.count):\(data.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 })"
        }
    }
}
