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
/// Thread-safe.
final class SQLiteMetadataCache: Sendable {
    /// The cache of the process.
    static let shared = SQLiteMetadataCache()

    /// The most entries kept.
    static let capacity = 8

    private struct Entry: Sendable {
        let bytes: Data
        let metadata: [String: any Sendable]
    }

    private let entries = StrataLock([Entry]())

    /// The metadata decoded from `bytes`: a kept one, else what `decode` returns (kept when it
    /// returns, not when it throws).
    func metadata(decodedFrom bytes: Data, _ decode: () throws -> [String: any Sendable]) rethrows -> [String: any Sendable] {
        if let kept = entries.withLock({ $0.last { $0.bytes == bytes }?.metadata }) { return kept }
        let metadata = try decode()
        let entry = Entry(bytes: bytes, metadata: metadata)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(entry)
        }
        return metadata
    }

    /// How many entries are kept now (for tests).
    var count: Int { entries.withLock { $0.count } }
}
