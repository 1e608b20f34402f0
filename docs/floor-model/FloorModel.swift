// The floor model of docs/benchmarks.md ("Targets not met", the fetch bullet): what a fetch of
// one object per row costs over the raw read of the rows when the objects do nothing else.
// Not part of the package (SwiftPM does not build `docs/`). To run it:
//
//     mkdir -p /tmp/floor-model/SQLite3
//     printf 'module SQLite3 [system] {\n header "/usr/include/sqlite3.h"\n link "sqlite3"\n export *\n}\n' \
//         > /tmp/floor-model/SQLite3/module.modulemap
//     swiftc -O -I /tmp/floor-model -o /tmp/floor-model/run docs/floor-model/FloorModel.swift -ljemalloc
//     MALLOC_CONF=lg_extent_max_active_fit:16 /tmp/floor-model/run 1000000
//     MALLOC_CONF=lg_extent_max_active_fit:16 /tmp/floor-model/run 1000000 192 184
//
// It makes (once) a table of the benchmarks' `Item` shape (six columns, two indexes) with the
// given number of rows, then times each side in 8 alternated rounds (the first left out) and
// prints the medians as ratios to the raw side. With two more arguments it times only the raw
// side against objects and snapshots of those sizes in bytes (what each asks `malloc` for, as
// `swift_allocObject` does: the object of an `Item` is 192, its row snapshot 184), each written
// in full when made, with the flat identity map: one size pair a process, so that no other
// side's freed memory is left in the allocator. A fourth argument `chunked` carves the
// snapshots from shared chunks of 1,024 rows instead; `twopass` makes every snapshot first and
// then the objects, as Strata's fetch does. Built without `-ljemalloc`, the program uses the C
// library's `malloc`, as an application does.

import Foundation
import SQLite3

let rowCount = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 100_000
let path = FileManager.default.temporaryDirectory.appendingPathComponent("floor-model-\(rowCount).sqlite").path

func makeTableIfNeeded() {
    guard !FileManager.default.fileExists(atPath: path) else { return }
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { print("cannot open \(path)"); exit(1) }
    sqlite3_exec(db, """
        PRAGMA journal_mode=WAL;
        CREATE TABLE ZITEM (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME TEXT, ZNUMBER INTEGER, ZSCORE REAL, ZFLAG INTEGER, ZCREATED REAL);
        CREATE INDEX ZITEM_ZNUMBER ON ZITEM (ZNUMBER); CREATE INDEX ZITEM_ZNAME ON ZITEM (ZNAME); BEGIN
        """, nil, nil, nil)
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO ZITEM VALUES (?, 1, 1, ?, ?, ?, ?, ?)", -1, &insert, nil)
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    for key in 1...rowCount {
        sqlite3_bind_int64(insert, 1, Int64(key))
        sqlite3_bind_text(insert, 2, "item \(key)", -1, transient)
        sqlite3_bind_int64(insert, 3, Int64(key * 7 % rowCount))
        sqlite3_bind_double(insert, 4, Double(key) / 3)
        sqlite3_bind_int64(insert, 5, Int64(key & 1))
        sqlite3_bind_double(insert, 6, 1.7e9 + Double(key))
        sqlite3_step(insert)
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    sqlite3_close(db)
}

makeTableIfNeeded()
var database: OpaquePointer?
guard sqlite3_open(path, &database) == SQLITE_OK else { print("cannot open \(path)"); exit(1) }

/// One row, as the benchmarks' raw side reads it.
struct Row {
    var key: Int64, name: String, number: Int64, score: Double, flag: Bool, created: Double

    init(_ statement: OpaquePointer?) {
        key = sqlite3_column_int64(statement, 0)
        name = sqlite3_column_text(statement, 1).map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(sqlite3_column_bytes(statement, 1))), as: UTF8.self) } ?? ""
        number = sqlite3_column_int64(statement, 2)
        score = sqlite3_column_double(statement, 3)
        flag = sqlite3_column_int64(statement, 4) != 0
        created = sqlite3_column_double(statement, 5)
    }
}

/// Steps every row of the table in key order.
func readAll(_ body: (OpaquePointer?) -> Void) {
    var select: OpaquePointer?
    sqlite3_prepare_v2(database, "SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM ORDER BY Z_PK", -1, &select, nil)
    while sqlite3_step(select) == SQLITE_ROW { body(select) }
    sqlite3_finalize(select)
}

/// An identity map that is a flat array indexed by key: the cheapest there is.
final class FlatMap {
    let slots: UnsafeMutablePointer<Unmanaged<AnyObject>?>
    init(rows: Int) {
        slots = .allocate(capacity: rows + 1)
        slots.initialize(repeating: nil, count: rows + 1)
    }
}

/// An identity map that is a Swift dictionary.
final class DictionaryMap { var table: [Int64: Unmanaged<AnyObject>] = [:] }

/// The row's values, held by an object (the model of a row snapshot).
final class Snapshot { let row: Row; init(_ row: Row) { self.row = row } }

final class BareObject { let row: Row; init(_ row: Row) { self.row = row } }

final class FlatObject {
    let row: Row
    unowned(unsafe) let map: FlatMap
    init(_ row: Row, map: FlatMap) { self.row = row; self.map = map }
    deinit { map.slots[Int(row.key)] = nil }
}

final class FlatSplitObject {
    let key: Int64
    let snapshot: Snapshot
    unowned(unsafe) let map: FlatMap
    init(_ snapshot: Snapshot, map: FlatMap) { key = snapshot.row.key; self.snapshot = snapshot; self.map = map }
    deinit { map.slots[Int(key)] = nil }
}

final class DictionaryObject {
    let row: Row
    unowned(unsafe) let map: DictionaryMap
    init(_ row: Row, map: DictionaryMap) { self.row = row; self.map = map }
    deinit { map.table.removeValue(forKey: row.key) }
}

final class DictionarySplitObject {
    let key: Int64
    let snapshot: Snapshot
    unowned(unsafe) let map: DictionaryMap
    init(_ snapshot: Snapshot, map: DictionaryMap) { key = snapshot.row.key; self.snapshot = snapshot; self.map = map }
    deinit { map.table.removeValue(forKey: key) }
}

/// Each side reads every row and returns how many it made, after releasing what it made.
@inline(never) func raw() -> Int {
    var rows: [Row] = []
    rows.reserveCapacity(rowCount)
    readAll { rows.append(Row($0)) }
    return rows.count
}

@inline(never) func bare() -> Int {
    var objects: [BareObject] = []
    readAll { objects.append(BareObject(Row($0))) }
    return objects.count
}

/// Looks each row up in the map first (a fetch must return the registered object if there is one).
@inline(never) func uniqued<Object: AnyObject>(_ lookUp: (Int64) -> Unmanaged<AnyObject>?, _ make: (Row) -> Object, _ register: (Int64, Object) -> Void) -> Int {
    var objects: [Object] = []
    readAll { statement in
        let row = Row(statement)
        if let existing = lookUp(row.key) {
            objects.append(unsafeDowncast(existing.takeUnretainedValue(), to: Object.self))
            return
        }
        let object = make(row)
        register(row.key, object)
        objects.append(object)
    }
    return objects.count
}

/// The sized sides: an object and a snapshot of any size (their tails of words written in full
/// when made, as an object's fields and a row's values are).
struct SizedObjectHeader { let key: Int64; let snapshot: SizedSnapshot; unowned(unsafe) let map: FlatMap }
final class SizedSnapshot: ManagedBuffer<Row, UInt64> {}
final class SizedObject: ManagedBuffer<SizedObjectHeader, UInt64> {
    deinit { header.map.slots[Int(header.key)] = nil }
}

/// The words to add to a buffer whose fixed part is `fixed` bytes for it to be `bytes` in all.
func tailWords(toReach bytes: Int, fixed: Int) -> Int { max(0, (bytes - fixed + 7) / 8) }

func sized(objectBytes: Int, snapshotBytes: Int, map: FlatMap) -> () -> Int {
    // The fixed parts: the object header (16 bytes) and the buffers' headers, rounded up to a word.
    let objectWords = tailWords(toReach: objectBytes, fixed: 16 + MemoryLayout<SizedObjectHeader>.stride)
    let snapshotWords = tailWords(toReach: snapshotBytes, fixed: 16 + MemoryLayout<Row>.stride)
    return {
        uniqued(
            { map.slots[Int($0)] },
            { row in
                let snapshot = SizedSnapshot.create(minimumCapacity: snapshotWords) { buffer in
                    buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: snapshotWords) }
                    return row
                }
                let object = SizedObject.create(minimumCapacity: objectWords) { buffer in
                    buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: objectWords) }
                    return SizedObjectHeader(key: row.key, snapshot: unsafeDowncast(snapshot, to: SizedSnapshot.self), map: map)
                }
                return unsafeDowncast(object, to: SizedObject.self)
            },
            { map.slots[Int($0)] = Unmanaged.passUnretained($1) })
    }
}

/// Snapshots carved from chunks of 1,024 rows instead (the rows of a batch decoded into one
/// buffer): one allocation a chunk, each row's `snapshotBytes` in it written in full, the object
/// holding its chunk (retained) and its index.
final class Chunk: ManagedBuffer<Int, UInt64> {}
struct ChunkedObjectHeader { let key: Int64; let chunk: Chunk; let index: Int; unowned(unsafe) let map: FlatMap }
final class ChunkedObject: ManagedBuffer<ChunkedObjectHeader, UInt64> {
    deinit { header.map.slots[Int(header.key)] = nil }
}

func chunked(objectBytes: Int, snapshotBytes: Int, map: FlatMap) -> () -> Int {
    let objectWords = tailWords(toReach: objectBytes, fixed: 16 + MemoryLayout<ChunkedObjectHeader>.stride)
    let rowWords = tailWords(toReach: snapshotBytes, fixed: 0)
    let rowsPerChunk = 1024
    return {
        var chunk = unsafeDowncast(Chunk.create(minimumCapacity: rowsPerChunk * rowWords) { _ in 0 }, to: Chunk.self)
        var used = 0
        return uniqued(
            { map.slots[Int($0)] },
            { row in
                if used == rowsPerChunk {
                    chunk = unsafeDowncast(Chunk.create(minimumCapacity: rowsPerChunk * rowWords) { _ in 0 }, to: Chunk.self)
                    used = 0
                }
                let index = used
                used += 1
                chunk.withUnsafeMutablePointerToElements { base in
                    (base + index * rowWords).initialize(repeating: UInt64(bitPattern: row.key), count: rowWords)
                }
                let object = ChunkedObject.create(minimumCapacity: objectWords) { [chunk] buffer in
                    buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: objectWords) }
                    return ChunkedObjectHeader(key: row.key, chunk: chunk, index: index, map: map)
                }
                return unsafeDowncast(object, to: ChunkedObject.self)
            },
            { map.slots[Int($0)] = Unmanaged.passUnretained($1) })
    }
}

/// The sized sides in two passes, as Strata's fetch runs (the store decodes every row into its
/// snapshot, then the context makes the objects): the snapshots into an array first, then one
/// object for each.
func twoPass(objectBytes: Int, snapshotBytes: Int, map: FlatMap) -> () -> Int {
    let objectWords = tailWords(toReach: objectBytes, fixed: 16 + MemoryLayout<SizedObjectHeader>.stride)
    let snapshotWords = tailWords(toReach: snapshotBytes, fixed: 16 + MemoryLayout<Row>.stride)
    return {
        var snapshots: [SizedSnapshot] = []
        readAll { statement in
            let row = Row(statement)
            let snapshot = SizedSnapshot.create(minimumCapacity: snapshotWords) { buffer in
                buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: snapshotWords) }
                return row
            }
            snapshots.append(unsafeDowncast(snapshot, to: SizedSnapshot.self))
        }
        var objects: [SizedObject] = []
        objects.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            let key = snapshot.header.key
            if let existing = map.slots[Int(key)] {
                objects.append(unsafeDowncast(existing.takeUnretainedValue(), to: SizedObject.self))
                continue
            }
            let made = SizedObject.create(minimumCapacity: objectWords) { buffer in
                buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: objectWords) }
                return SizedObjectHeader(key: key, snapshot: snapshot, map: map)
            }
            let object = unsafeDowncast(made, to: SizedObject.self)
            map.slots[Int(key)] = Unmanaged.passUnretained(object)
            objects.append(object)
        }
        return objects.count
    }
}

let sizes = CommandLine.arguments.dropFirst(2).prefix(2).compactMap { Int($0) }
if sizes.count == 2 {
    let mode = CommandLine.arguments.dropFirst(4).first ?? ""
    let map = FlatMap(rows: rowCount)
    let make = ["chunked": chunked, "twopass": twoPass][mode] ?? sized
    let side = make(sizes[0], sizes[1], map)
    var times: [[Double]] = [[], []]
    for round in 0..<8 {
        for (index, body) in [raw, side].enumerated() {
            let start = DispatchTime.now().uptimeNanoseconds
            let made = body()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            guard made == rowCount else { print("\(made) rows, expected \(rowCount)"); exit(1) }
            if round > 0 { times[index].append(elapsed) }
        }
    }
    let medians = times.map { $0.sorted()[$0.count / 2] }
    let label = "object %d + snapshot %d bytes" + ["chunked": " in chunks of 1024", "twopass": " in two passes"][mode, default: ""] + ", flat map"
    print(String(format: label + ": raw %.1f ms, sized %.1f ms, %.2f× raw", sizes[0], sizes[1], medians[0], medians[1], medians[1] / medians[0]))
    exit(0)
}

let flat = FlatMap(rows: rowCount), flatSplit = FlatMap(rows: rowCount)
let dictionary = DictionaryMap(), dictionarySplit = DictionaryMap()
let sides: [(String, () -> Int)] = [
    ("raw: each row into a struct in an array", raw),
    ("one object per row, no identity map", bare),
    ("one object per row, flat identity map", {
        uniqued({ flat.slots[Int($0)] }, { FlatObject($0, map: flat) }, { flat.slots[Int($0)] = Unmanaged.passUnretained($1) })
    }),
    ("object + snapshot per row, flat identity map", {
        uniqued({ flatSplit.slots[Int($0)] }, { FlatSplitObject(Snapshot($0), map: flatSplit) }, { flatSplit.slots[Int($0)] = Unmanaged.passUnretained($1) })
    }),
    ("one object per row, Dictionary identity map", {
        uniqued({ dictionary.table[$0] }, { DictionaryObject($0, map: dictionary) }, { dictionary.table[$0] = Unmanaged.passUnretained($1) })
    }),
    ("object + snapshot per row, Dictionary identity map", {
        uniqued({ dictionarySplit.table[$0] }, { DictionarySplitObject(Snapshot($0), map: dictionarySplit) }, { dictionarySplit.table[$0] = Unmanaged.passUnretained($1) })
    }),
]

var times = Array(repeating: [Double](), count: sides.count)
for round in 0..<8 {
    for (index, side) in sides.enumerated() {
        let start = DispatchTime.now().uptimeNanoseconds
        let made = side.1()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        guard made == rowCount else { print("\(side.0): \(made) rows, expected \(rowCount)"); exit(1) }
        if round > 0 { times[index].append(elapsed) }
    }
}
let medians = times.map { $0.sorted()[$0.count / 2] }
for (index, side) in sides.enumerated() {
    let label = side.0.padding(toLength: 52, withPad: " ", startingAt: 0)
    print(label + String(format: " %8.1f ms  %5.2f× raw", medians[index], medians[index] / medians[0]))
}
