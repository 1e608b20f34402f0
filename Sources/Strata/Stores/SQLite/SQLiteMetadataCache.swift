import Foundation
import StrataLocks

/// The metadata of the store files opened last, decoded, by the bytes they were decoded from.
///
/// Opening a SQLite store reads its metadata, a binary property list, and decoding it through
/// `PropertyListReader` (which refuses damaged lists instead of crashing, see
/// `Support/PropertyListReader.swift`) was about a third of the time `addPersistentStore` took on
/// a small model. A process that opens the same store again (a tool run per request, a test
/// suite, a pool of coordinators) reads the same bytes: their decoded value is taken from here.
/// The bytes are always read from the file and compared in full, so a store whose metadata
/// changed is decoded again. Holds at most ``capacity`` entries, dropping the oldest.
///
/// Nothing kept here is a `Data`: the bytes are kept as an array, and metadata holding a `Data`
/// value (an app's own key) is decoded each time instead of kept. LeakSanitizer cannot follow a
/// `Data`'s reference to its bytes, so the store-file fuzzer (`Fuzz/run-fuzzer.sh`) would report
/// a kept one as leaked at exit. Thread-safe.
final class SQLiteMetadataCache: Sendable {
    /// The cache of the process.
    static let shared = SQLiteMetadataCache()

    /// The most entries kept.
    static let capacity = 8

    private struct Entry: Sendable {
        let bytes: [UInt8]
        let metadata: [String: any Sendable]

        func holds(_ other: Data) -> Bool {
            guard bytes.count == other.count else { return false }
            return bytes.withUnsafeBytes { kept in other.withUnsafeBytes { read in kept.elementsEqual(read) } }
        }
    }

    private let entries = StrataLock([Entry]())

    /// The metadata decoded from `bytes`: a kept one, else what `decode` returns (kept when it
    /// returns and holds no `Data`, not when it throws).
    func metadata(decodedFrom bytes: Data, _ decode: () throws -> [String: any Sendable]) rethrows -> [String: any Sendable] {
        if let kept = entries.withLock({ $0.last { $0.holds(bytes) }?.metadata }) { return kept }
        let metadata = try decode()
        guard !Self.holdsData(metadata) else { return metadata }
        let entry = Entry(bytes: [UInt8](bytes), metadata: metadata)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(entry)
        }
        return metadata
    }

    /// How many entries are kept now (for tests).
    var count: Int { entries.withLock { $0.count } }

    /// Whether `value` is or contains a `Data`.
    private static func holdsData(_ value: any Sendable) -> Bool {
        switch value {
        case is Data: return true
        case let dictionary as [String: any Sendable]: return dictionary.values.contains { holdsData($0) }
        case let array as [any Sendable]: return array.contains { holdsData($0) }
        default: return false
        }
    }
}
