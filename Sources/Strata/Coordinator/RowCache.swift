import Foundation
import Synchronization

/// The coordinator's row cache: the last row snapshot read from or written to the store for
/// each object, shared by every context of the coordinator.
///
/// Entries hold their snapshots weakly: a snapshot lives as long as some object (in any
/// context) uses it, and the entry is dropped once no one does. A context reuses a cached
/// snapshot when it is no older than the context's `stalenessInterval`. Thread-safe: the table
/// is split into shards, each behind its own lock.
final class RowCache: Sendable {
    private struct Entry {
        weak var snapshot: RowSnapshot?
    }

    private final class Shard: Sendable {
        let entries = Mutex<[ManagedObjectID: Entry]>([:])
        let writesSincePurge = Atomic<Int>(0)
    }

    private let shards: [Shard]

    init(shardCount: Int = 8) {
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
    }

    private func shard(for id: ManagedObjectID) -> Shard {
        shards[Int(UInt(bitPattern: id.hashValue) % UInt(shards.count))]
    }

    /// The cached snapshot of `id` no older than `maxAge` seconds (negative: any age; 0: none).
    func snapshot(for id: ManagedObjectID, maxAge: TimeInterval) -> RowSnapshot? {
        if maxAge == 0 { return nil }
        guard let snapshot = shard(for: id).entries.withLock({ $0[id]?.snapshot }) else { return nil }
        return snapshot.isFresh(stalenessInterval: maxAge) ? snapshot : nil
    }

    /// Records snapshots (newer versions replace older ones).
    func store(_ snapshots: [RowSnapshot]) {
        guard !snapshots.isEmpty else { return }
        if shards.count == 1 {
            insert(snapshots, into: shards[0])
            return
        }
        var grouped = Array(repeating: [RowSnapshot](), count: shards.count)
        for snapshot in snapshots {
            grouped[Int(UInt(bitPattern: snapshot.objectID.hashValue) % UInt(shards.count))].append(snapshot)
        }
        for (index, group) in grouped.enumerated() where !group.isEmpty {
            insert(group, into: shards[index])
        }
    }

    private func insert(_ snapshots: [RowSnapshot], into shard: Shard) {
        let written = shard.writesSincePurge.wrappingAdd(snapshots.count, ordering: .relaxed).newValue
        shard.entries.withLock { entries in
            for snapshot in snapshots {
                if let current = entries[snapshot.objectID]?.snapshot, current.version > snapshot.version { continue }
                entries[snapshot.objectID] = Entry(snapshot: snapshot)
            }
            // Drop entries whose snapshots were released, once the table has grown enough to
            // make it worth a pass (amortised O(1) per write).
            if written > max(1_024, entries.count) {
                entries = entries.filter { $0.value.snapshot != nil }
                shard.writesSincePurge.store(0, ordering: .relaxed)
            }
        }
    }

    /// Forgets `ids` (deleted rows).
    func remove(_ ids: [ManagedObjectID]) {
        for id in ids {
            _ = shard(for: id).entries.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Number of entries whose snapshot is still alive (for tests and diagnostics).
    var liveCount: Int {
        shards.reduce(0) { total, shard in total + shard.entries.withLock { $0.values.filter { $0.snapshot != nil }.count } }
    }

    /// Forgets everything.
    func removeAll() {
        for shard in shards { shard.entries.withLock { $0.removeAll() } }
    }
}
