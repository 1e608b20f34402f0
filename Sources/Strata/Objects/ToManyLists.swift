/// An object's to-many contents, by to-many slot: as they are now, and as they were last loaded
/// or saved (kept to compute what a save changes). `nil` entries are not loaded yet.
///
/// Kept out of the object itself (``ManagedObject/toManyLists``), which holds nil while none of
/// its to-manys is loaded: most fetched objects never load one, and an object one word smaller
/// lands in a smaller size class of the allocator. Shared copy on write: every inserted object
/// of an entity starts with the same record of empty lists (``empty(count:)``), and the first
/// change copies it. Every record has one entry per to-many of its object's entity in each list,
/// as the lists without a record have. Used only on the object's context's queue, like the
/// object.
final class ToManyLists {
    /// The current contents.
    var current: [ToManyValue?]
    /// The contents as last loaded or saved.
    var committed: [ToManyValue?]

    init(current: [ToManyValue?], committed: [ToManyValue?]) {
        self.current = current
        self.committed = committed
    }

    /// The longest lists kept ready to share (entities with more to-manys get a record of
    /// their own each time).
    private static let sharedLimit = 16

    /// Records of `count` empty to-manys, for counts below ``sharedLimit``. Shared by objects
    /// of every context, on every queue: safe because nothing writes a shared record. Writes go
    /// through `ManagedObject.uniqueToManyLists`, which copies a record that is not uniquely
    /// referenced, and these are never uniquely referenced (this array holds each of them).
    nonisolated(unsafe) private static let emptyRecords: [ToManyLists] = (0..<sharedLimit).map {
        ToManyLists(current: ToManyValue.emptyList(count: $0), committed: ToManyValue.emptyList(count: $0))
    }

    /// `count` empty to-manys, loaded: what an inserted object starts with (shared until one
    /// of them changes; see ``ManagedObject/toManyValues``).
    static func empty(count: Int) -> ToManyLists {
        count < sharedLimit ? emptyRecords[count] : ToManyLists(current: ToManyValue.emptyList(count: count), committed: ToManyValue.emptyList(count: count))
    }
}

extension ManagedObject {
    /// The object's own record of to-many contents, made (all unloaded) when it has none and
    /// copied when it shares one, for a change.
    private var uniqueToManyLists: ToManyLists {
        if toManyLists != nil, isKnownUniquelyReferenced(&toManyLists), let lists = toManyLists { return lists }
        let lists =
            toManyLists.map { ToManyLists(current: $0.current, committed: $0.committed) }
            ?? ToManyLists(current: unloadedToManys, committed: unloadedToManys)
        toManyLists = lists
        return lists
    }

    /// One unloaded entry per to-many of the entity: the lists of an object without a record
    /// (shared: no allocation).
    private var unloadedToManys: [ToManyValue?] { ToManyValue.unloadedList(count: entity.layout.toManyRelationships.count) }

    /// Whether setting `list` as either list of an object without a record would change nothing.
    private func isUnloadedWithoutRecord(_ list: [ToManyValue?]) -> Bool {
        toManyLists == nil && list.count == entity.layout.toManyRelationships.count && list.allSatisfy { $0 == nil }
    }

    /// The current to-many contents, by to-many slot; `nil` entries are not loaded yet. Without
    /// a record, one unloaded entry per to-many of the entity (a shared list: no allocation).
    var toManyValues: [ToManyValue?] {
        get { toManyLists?.current ?? unloadedToManys }
        _modify {
            let lists = uniqueToManyLists
            yield &lists.current
        }
        set {
            if isUnloadedWithoutRecord(newValue) { return }
            uniqueToManyLists.current = newValue
        }
    }

    /// The to-many contents as last loaded or saved (see ``toManyValues``).
    var committedToMany: [ToManyValue?] {
        get { toManyLists?.committed ?? unloadedToManys }
        _modify {
            let lists = uniqueToManyLists
            yield &lists.committed
        }
        set {
            if isUnloadedWithoutRecord(newValue) { return }
            uniqueToManyLists.committed = newValue
        }
    }

    /// The current to-many contents become the committed ones (the end of a save). A shared
    /// record whose lists are equal already (an inserted object's empty lists) stays shared.
    func commitToManyContents() {
        guard toManyLists != nil else { return }
        if isKnownUniquelyReferenced(&toManyLists), let lists = toManyLists {
            lists.committed = lists.current
        } else if let lists = toManyLists, lists.current != lists.committed {
            toManyLists = ToManyLists(current: lists.current, committed: lists.current)
        }
    }
}
