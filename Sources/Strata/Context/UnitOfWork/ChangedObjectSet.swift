/// One of the unit of work's sets (inserted, updated or deleted objects), in insertion order, so
/// saves write rows in the order objects were inserted and primary keys follow that order.
///
/// An object is in at most one of these sets at a time (the one its change state names), so the
/// object itself keeps its position (`ManagedObject.changeSetPosition`): inserting, removing and
/// testing membership cost an array access and an identity comparison, with no hashing. A stale
/// position (left by ``removeAll()`` or by another set) never matches, because membership is
/// checked by identity at that position. Used on one context's queue.
struct ChangedObjectSet: Sequence {
    private var slots: [ManagedObject?] = []
    private(set) var count = 0
    /// Counts the inserts and removals so far: equal counts before and after some work mean the
    /// set did not change during it.
    private(set) var mutations = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always) func contains(_ object: ManagedObject) -> Bool {
        let position = Int(object.changeSetPosition)
        return position >= 0 && position < slots.count && slots[position] === object
    }

    mutating func insert(_ object: ManagedObject) {
        guard !contains(object) else { return }
        object.changeSetPosition = Int32(truncatingIfNeeded: slots.count)
        slots.append(object)
        count += 1
        mutations &+= 1
    }

    mutating func remove(_ object: ManagedObject) {
        guard contains(object) else { return }
        slots[Int(object.changeSetPosition)] = nil
        object.changeSetPosition = -1
        count -= 1
        mutations &+= 1
        let removed = slots.count - count
        if removed > 64 && removed * 2 > slots.count { compact() }
    }

    mutating func removeAll() {
        slots.removeAll()
        count = 0
        mutations &+= 1
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        for (position, object) in slots.enumerated() { object?.changeSetPosition = Int32(truncatingIfNeeded: position) }
    }

    /// The objects in insertion order, as a new array.
    var objects: [ManagedObject] { slots.compactMap { $0 } }

    var underestimatedCount: Int { count }

    /// Iterates the objects in insertion order without making an array of them; the iterator
    /// walks the set as it was when the loop began (changes during the loop do not show).
    func makeIterator() -> Iterator { Iterator(slots: slots) }

    /// The iterator of ``ChangedObjectSet``: the slots, skipping the holes of removed objects.
    /// It asks for the object some places ahead (``Prefetch``): a save walks its sets several
    /// times, and the objects of a large one are out of the caches by the next walk.
    struct Iterator: IteratorProtocol {
        fileprivate let slots: [ManagedObject?]
        private var position = 0

        fileprivate init(slots: [ManagedObject?]) { self.slots = slots }

        mutating func next() -> ManagedObject? {
            while position < slots.count {
                let index = position
                position += 1
                Prefetch.object(in: slots, at: index &+ Prefetch.distance)
                if let object = slots[index] { return object }
            }
            return nil
        }
    }

    /// Calls `body` with each object in insertion order, for a walk whose work on an object
    /// reads its values and its snapshot (building a save's change set): the object is asked
    /// for two ``Prefetch`` distances ahead, and its values and snapshot one distance ahead,
    /// when its fields are at hand (see `ManagedObject.prefetchSavedState()`). Retaining each
    /// object's values waited for memory without the second step (perf: half of building the
    /// change set of 200,000 updated objects). A light walk gains nothing from it: reading the
    /// fields of an object asked for too recently waits instead.
    func forEachPrefetchingSavedState(_ body: (ManagedObject) throws -> Void) rethrows {
        try slots.withUnsafeBufferPointer { slots in
            for index in slots.indices {
                Prefetch.object(in: slots, at: index &+ 2 &* Prefetch.distance)
                Prefetch.unretainedObject(in: slots, at: index &+ Prefetch.distance)?._withUnsafeGuaranteedRef { $0.prefetchSavedState() }
                if let object = slots[index] { try body(object) }
            }
        }
    }
}
