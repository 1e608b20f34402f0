import Foundation
import Strata
import StrataLocks

/// One save a writer published after it reached the store: the records it changed and the
/// version it saved for each key.
public struct PublishedSave: Sendable {
    /// The changed records' IDs.
    public var ids: Set<ManagedObjectID>
    /// The version saved, by key.
    public var versions: [Int64: Int64]
}

/// Carries every published save to every reader (one inbox each). A reader takes its inbox,
/// merges it into its context, and only then raises its floors: the least version it may read
/// for each key. An inbox keeps at most `capacity` saves; older ones are dropped (and counted),
/// which never causes a false alarm: a dropped save is never merged, so it raises no floor.
/// Thread-safe.
public final class MergeFanout: Sendable {
    private struct Inboxes {
        var saves: [[PublishedSave]]
        var dropped = 0
    }

    private let inboxes: StrataLock<Inboxes>
    private let capacity: Int

    /// Creates `readers` empty inboxes.
    public init(readers: Int, capacity: Int = 4_096) {
        inboxes = StrataLock(Inboxes(saves: Array(repeating: [], count: readers)))
        self.capacity = capacity
    }

    /// Appends `save` to every inbox.
    public func publish(_ save: PublishedSave) {
        inboxes.withLock { inboxes in
            for reader in inboxes.saves.indices {
                inboxes.saves[reader].append(save)
                let extra = inboxes.saves[reader].count - capacity
                if extra > 0 {
                    inboxes.saves[reader].removeFirst(extra)
                    inboxes.dropped += extra
                }
            }
        }
    }

    /// Empties reader `reader`'s inbox and returns what it held, oldest first.
    public func take(_ reader: Int) -> [PublishedSave] {
        inboxes.withLock { inboxes in
            defer { inboxes.saves[reader] = [] }
            return inboxes.saves[reader]
        }
    }

    /// Saves dropped from full inboxes.
    public var droppedSaves: Int { inboxes.withLock { $0.dropped } }
}
