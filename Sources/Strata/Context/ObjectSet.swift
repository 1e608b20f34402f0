/// A set of objects that remembers insertion order (so saves write rows in the order objects
/// were inserted, and primary keys follow that order). Used on one context's queue.
struct ObjectSet: Sequence {
    private var positions: [ObjectIdentifier: Int] = [:]
    private var slots: [ManagedObject?] = []
    private var removedCount = 0

    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    func contains(_ object: ManagedObject) -> Bool { positions[ObjectIdentifier(object)] != nil }

    mutating func insert(_ object: ManagedObject) {
        guard positions[ObjectIdentifier(object)] == nil else { return }
        positions[ObjectIdentifier(object)] = slots.count
        slots.append(object)
    }

    mutating func remove(_ object: ManagedObject) {
        guard let index = positions.removeValue(forKey: ObjectIdentifier(object)) else { return }
        slots[index] = nil
        removedCount += 1
        if removedCount > 64 && removedCount * 2 > slots.count { compact() }
    }

    mutating func removeAll() {
        positions.removeAll()
        slots.removeAll()
        removedCount = 0
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        positions.removeAll(keepingCapacity: true)
        for (index, object) in slots.enumerated() {
            if let object { positions[ObjectIdentifier(object)] = index }
        }
        removedCount = 0
    }

    /// The objects in insertion order.
    var objects: [ManagedObject] { slots.compactMap { $0 } }

    func makeIterator() -> IndexingIterator<[ManagedObject]> { objects.makeIterator() }
}
