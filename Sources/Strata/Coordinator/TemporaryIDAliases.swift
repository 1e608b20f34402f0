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

    func record(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
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
