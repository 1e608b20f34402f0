import StrataLocks
import Synchronization

/// Temporary IDs that root saves replaced with permanent ones, kept so that contexts lower in
/// the tree (which still hold objects under their temporary IDs) resolve both. Recorded only
/// when the saving context has children. Thread-safe.
final class TemporaryIDAliases: Sendable {
    private struct Table {
        var permanentByTemporary: [ManagedObjectID: ManagedObjectID] = [:]
        var temporaryByPermanent: [ManagedObjectID: ManagedObjectID] = [:]
    }

    private let table = StrataLock(Table())
    private let count = Atomic<Int>(0)

    var hasEntries: Bool { count.load(ordering: .relaxed) > 0 }

    /// Whether any coordinator of the process ever recorded an alias. Until one does, a lookup
    /// that misses a context's identity map (every object of a first fetch) need not reach for
    /// its coordinator's table at all (see `ManagedObjectContext.findRegistered`).
    static var anyRecorded: Bool { recordedAnywhere.load(ordering: .relaxed) }
    private static let recordedAnywhere = Atomic<Bool>(false)

    func record(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        Self.recordedAnywhere.store(true, ordering: .relaxed)
        table.withLock { table in
            for (temporary, permanent) in mapping {
                table.permanentByTemporary[temporary] = permanent
                table.temporaryByPermanent[permanent] = temporary
            }
            count.store(table.permanentByTemporary.count, ordering: .relaxed)
        }
    }

    func permanent(for temporary: ManagedObjectID) -> ManagedObjectID? {
        table.withLock { $0.permanentByTemporary[temporary] }
    }

    func temporary(for permanent: ManagedObjectID) -> ManagedObjectID? {
        table.withLock { $0.temporaryByPermanent[permanent] }
    }
}
