/// A context's identity map: at most one object per ID.
///
/// Entries do not retain their objects. A context keeps changed objects alive through its own
/// sets; an unchanged object lives only as long as the app holds it, and removes its entry when
/// it is deinitialized (on the context's queue, since objects never leave it). So a context
/// that walks a million rows does not keep them. Used only on its context's queue.
final class ObjectRegistry {
    private var entries: [ManagedObjectID: Unmanaged<ManagedObject>] = [:]

    /// The registered object for `id`, if any.
    @inline(__always) func object(for id: ManagedObjectID) -> ManagedObject? {
        entries[id]?.takeUnretainedValue()
    }

    /// Registers `object` under its current ID.
    func register(_ object: ManagedObject) {
        entries[object.objectID] = Unmanaged.passUnretained(object)
    }

    /// Removes the entry for `id` if it still points to `object`.
    func unregister(_ id: ManagedObjectID, ifItIs object: ManagedObject) {
        if let current = entries[id], current.toOpaque() == Unmanaged.passUnretained(object).toOpaque() {
            entries[id] = nil
        }
    }

    /// Moves `object` from `oldID` to its current ID (temporary → permanent).
    func rekey(_ object: ManagedObject, from oldID: ManagedObjectID) {
        unregister(oldID, ifItIs: object)
        register(object)
    }

    /// Makes room for `additional` more objects (before registering a large fetch).
    func reserve(additional: Int) {
        entries.reserveCapacity(entries.count + additional)
    }

    /// Number of registered objects.
    var count: Int { entries.count }

    /// All registered objects (retained for the caller).
    var allObjects: [ManagedObject] { entries.values.map { $0.takeUnretainedValue() } }

    /// Forgets every entry; objects still alive keep working as detached objects.
    func removeAll() {
        entries.removeAll()
    }
}
