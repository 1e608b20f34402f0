/// An object's to-many contents, by to-many slot: as they are now, and as they were last loaded
/// or saved (kept to compute what a save changes). `nil` entries are not loaded yet.
///
/// Kept out of the object itself (``ManagedObject/toManyLists``), which holds nil while none of
/// its to-manys is loaded: most fetched objects never load one, and an object one word smaller
/// lands in a smaller size class of the allocator. Shared copy on write: every inserted object
/// of an entity starts with the same record of empty lists (``empty(count:)``), and the first
/// change copies it. Used only on the object's context's queue, like the object.
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
        let count = entity.layout.toManyRelationships.count
        let lists =
            toManyLists.map { ToManyLists(current: $0.current, committed: $0.committed) }
            ?? ToManyLists(current: ToManyValue.unloadedList(count: count), committed: ToManyValue.unloadedList(count: count))
        toManyLists = lists
        return lists
    }

    /// The current to-many contents, by to-many slot; `nil` entries are not loaded yet. Without
    /// a record, one unloaded entry per to-many of the entity (a shared list: no allocation).
    var toManyValues: [ToManyValue?] {
        get { toManyLists?.current ?? ToManyValue.unloadedList(count: entity.layout.toManyRelationships.count) }
        _modify {
            let lists = uniqueToManyLists
            yield &lists.current
        }
        set {
            if toManyLists == nil && newValue.allSatisfy({ $0 == nil }) && newValue.count == entity.layout.toManyRelationships.count { return }
            uniqueToManyLists.current = newValue
        }
    }

    /// The to-many contents as last loaded or saved (see ``toManyValues``).
    var committedToMany: [ToManyValue?] {
        get { toManyLists?.committed ?? ToManyValue.unloadedList(count: entity.layout.toManyRelationships.count) }
        _modify {
            let lists = uniqueToManyLists
            yield &lists.committed
        }
        set {
            if toManyLists == nil && newValue.allSatisfy({ $0 == nil }) && newValue.count == entity.layout.toManyRelationships.count { return }
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
