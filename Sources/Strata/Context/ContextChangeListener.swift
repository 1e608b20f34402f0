/// Something that follows a context's changes with the objects themselves, not their IDs: the
/// subscription point of fetched-results controllers (`Sources/Strata/Results/`), which must not
/// go through `NotificationCenter` (its user info boxes every set, and its blocks are
/// `@Sendable` while managed objects are not).
///
/// **Queue.** Called synchronously on the context's queue, right after the matching
/// notification is posted. A listener may read objects and fetch; changes it makes go into the
/// context's next event.
protocol ContextChangeListener: AnyObject {
    /// The context posted objects-did-change with `changes`.
    func context(_ context: ManagedObjectContext, objectsDidChange changes: ObjectsDidChange)
    /// The context saved: `inserted` are the objects that were inserted and now have permanent
    /// IDs.
    func context(_ context: ManagedObjectContext, didSaveInserting inserted: Set<ManagedObject>)
}

/// The objects one objects-did-change notification reports. Used on the context's queue.
struct ObjectsDidChange {
    var inserted: Set<ManagedObject> = []
    var updated: Set<ManagedObject> = []
    var deleted: Set<ManagedObject> = []
    var refreshed: Set<ManagedObject> = []
    var invalidated: Set<ManagedObject> = []
    /// `reset()`: every object the context had is gone.
    var invalidatedAll = false
}

/// The listeners of one context, held weakly (a controller that goes away stops listening).
/// Touched only on the context's queue.
final class ContextChangeListeners {
    private struct Entry {
        weak var listener: (any ContextChangeListener)?
    }

    private var entries: [Entry] = []

    /// Whether nobody listens (one branch on the notification path).
    var isEmpty: Bool { entries.isEmpty }

    func add(_ listener: any ContextChangeListener) {
        entries.removeAll { $0.listener == nil || $0.listener === listener }
        entries.append(Entry(listener: listener))
    }

    func remove(_ listener: any ContextChangeListener) {
        entries.removeAll { $0.listener == nil || $0.listener === listener }
    }

    /// The listeners still alive (dropping the others).
    func live() -> [any ContextChangeListener] {
        entries.removeAll { $0.listener == nil }
        return entries.compactMap(\.listener)
    }
}

extension ManagedObjectContext {
    /// Starts telling `listener` of this context's changes. Call on the context's queue.
    func addChangeListener(_ listener: any ContextChangeListener) {
        state.changeListeners.add(listener)
    }

    /// Stops telling `listener`. Call on the context's queue.
    func removeChangeListener(_ listener: any ContextChangeListener) {
        state.changeListeners.remove(listener)
    }

    /// Hands a notification just posted to the listeners, with the objects from its user info.
    func tellListeners(_ changes: ContextChanges, userInfo: [String: Any]) {
        guard !state.changeListeners.isEmpty else { return }
        func objects(_ key: String) -> Set<ManagedObject> { userInfo[key] as? Set<ManagedObject> ?? [] }
        if changes.name == .managedObjectContextObjectsDidChange {
            let event = ObjectsDidChange(
                inserted: objects(NotificationKey.insertedObjects), updated: objects(NotificationKey.updatedObjects),
                deleted: objects(NotificationKey.deletedObjects), refreshed: objects(NotificationKey.refreshedObjects),
                invalidated: objects(NotificationKey.invalidatedObjects), invalidatedAll: changes.invalidatedAll)
            for listener in state.changeListeners.live() { listener.context(self, objectsDidChange: event) }
        } else if changes.name == .managedObjectContextDidSave {
            let inserted = objects(NotificationKey.insertedObjects)
            for listener in state.changeListeners.live() { listener.context(self, didSaveInserting: inserted) }
        }
    }
}
