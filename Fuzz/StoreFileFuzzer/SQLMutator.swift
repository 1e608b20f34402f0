// A structured mutator for the store-file fuzzer: half of the mutations are libFuzzer's own
// (bit flips, byte changes, truncations, crossovers of the bytes), the other half open the input
// as a SQLite database and change it with one SQL statement — a cell of any table set to a value
// of another type or an extreme one, a row deleted or copied, a metadata blob replaced — so the
// file stays a valid database and the damage reaches Strata's own assumptions (entity codes,
// keys, orders, the key table, the metadata) instead of SQLite's page checks.
import Foundation
import StrataSQLite

@_silgen_name("LLVMFuzzerMutate")
private func libFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

/// The file SQL mutations are made in (one per process, beside the input file's folder).
private let mutationFile: URL = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-store-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("mutate.sqlite")
}()

/// Values a cell is set to: other types, extremes, references to nothing.
private let values = [
    "NULL", "0", "1", "-1", "2", "3", "4", "99", "-9223372036854775808", "9223372036854775807", "1e300", "-0.5",
    "9e999", "-9e999", "'text'", "''", "X''", "X'00FF'", "X'62706C6973743030'", "'bplist00'", "1.5", "'ZNAME,ZAGE'",
]

/// A small deterministic generator seeded by libFuzzer's seed.
private struct SplitMix {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(max(bound, 1)))
    }
}

/// One SQL mutation of `bytes`, or nil when the bytes are not a database it can change.
private func sqlMutation(of bytes: [UInt8], random: inout SplitMix) -> [UInt8]? {
    for suffix in ["-wal", "-shm", "-journal"] { unlink(mutationFile.path + suffix) }
    guard (try? Data(bytes).write(to: mutationFile)) != nil else { return nil }
    do {
        var configuration = SQLiteConfiguration()
        configuration.journalMode = .rollback
        configuration.busyTimeoutMilliseconds = 0
        let connection = try SQLiteConnection(path: mutationFile.path, configuration: configuration)
        try connection.registerCollation("STRATA_DECIMAL") { a, b in
            a.lexicographicallyPrecedes(b) ? -1 : a.elementsEqual(b) ? 0 : 1
        }
        var tables: [String] = []
        try connection.cachedStatement("SELECT name FROM sqlite_master WHERE type = 'table'").forEachRow { row in
            if let name = row.text(at: 0) { tables.append(name) }
        }
        guard !tables.isEmpty else { return nil }
        let table = tables[random.next(tables.count)]
        var columns: [String] = []
        try connection.cachedStatement("SELECT name FROM pragma_table_info(?)").forEachRow([.text(table)]) { row in
            if let name = row.text(at: 0) { columns.append(name) }
        }
        guard !columns.isEmpty else { return nil }
        let column = "\"\(columns[random.next(columns.count)])\""
        let value = values[random.next(values.count)]
        let quoted = "\"\(table)\""
        let row = "(SELECT rowid FROM \(quoted) LIMIT 1 OFFSET \(random.next(4)))"
        let statements = [
            "UPDATE \(quoted) SET \(column) = \(value) WHERE rowid = \(row)",
            "UPDATE \(quoted) SET \(column) = \(value)",
            "UPDATE \(quoted) SET \(column) = -\(column)",
            "DELETE FROM \(quoted) WHERE rowid = \(row)",
            "INSERT INTO \(quoted) SELECT * FROM \(quoted) WHERE rowid = \(row)",
            "UPDATE OR IGNORE \(quoted) SET \(column) = \(column) + \(random.next(5) - 2)",
        ]
        // A failed statement (a constraint, a WITHOUT ROWID table) leaves the file as it was.
        try? connection.execute(statements[random.next(statements.count)])
        // Opening in rollback mode rewrote the header; a WAL file stays one (checkpointed on close).
        if bytes.count > 18 && bytes[18] == 2 { try? connection.execute("PRAGMA journal_mode = WAL") }
    } catch {
        return nil
    }
    guard let data = try? Data(contentsOf: mutationFile) else { return nil }
    return [UInt8](data)
}

@_cdecl("LLVMFuzzerCustomMutator")
public func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var random = SplitMix(state: UInt64(seed))
    if random.next(2) == 0 || size == 0 { return libFuzzerMutate(data, size, maxSize) }
    guard let mutated = sqlMutation(of: [UInt8](UnsafeBufferPointer(start: data, count: size)), random: &random), mutated.count <= maxSize else {
        return libFuzzerMutate(data, size, maxSize)
    }
    mutated.withUnsafeBufferPointer { buffer in
        if let base = buffer.baseAddress { data.update(from: base, count: buffer.count) }
    }
    return mutated.count
}
