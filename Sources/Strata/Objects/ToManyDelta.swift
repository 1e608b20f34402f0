/// Edits of a to-many made while its contents were not loaded: for each object touched,
/// whether it should end up in the relationship (added ones at the end, in the order they were
/// added, as appends to an ordered relationship do). Recording them instead of loading the
/// relationship makes inverse maintenance free of I/O; the contents are loaded (in batches)
/// when they are read or when the object is saved, and the edits applied on top. Edits by
/// position (insert at, move) load the contents first.
struct ToManyDelta {
    /// Objects that must be in the relationship, in the order they were added.
    private(set) var added: [ManagedObjectID] = []
    /// Objects removed at some point: dropped from the stored contents (and appended again
    /// when they are in `added` too).
    private(set) var removed: Set<ManagedObjectID> = []
    private var addedSet: Set<ManagedObjectID> = []

    /// `id` must end up in the relationship, at the end. A removed `id` stays in `removed` too:
    /// applying the edits drops it from its stored position and appends it, as a remove then
    /// an append on loaded contents would.
    mutating func add(_ id: ManagedObjectID) {
        if addedSet.insert(id).inserted { added.append(id) }
    }

    /// `id` must not end up in the relationship.
    mutating func remove(_ id: ManagedObjectID) {
        if addedSet.remove(id) != nil, let index = added.lastIndex(of: id) { added.remove(at: index) }
        removed.insert(id)
    }

    /// The contents once the edits are applied to the stored contents `stored`: removed
    /// objects dropped, added ones appended (unless already there).
    func applied(to stored: ToManyValue) -> ToManyValue {
        var result = removed.isEmpty ? stored : ToManyValue(stored.ids.filter { !removed.contains($0) })
        for id in added { result.append(id) }
        return result
    }
}
