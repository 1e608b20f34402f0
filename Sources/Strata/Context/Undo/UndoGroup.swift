/// One undo group: for every object changed while it was open, whether the object existed
/// (inserted or not deleted) before and after, and the old and new values of each property
/// that changed. Undoing a group puts the "before" side back, redoing it the "after" side.
///
/// Values are recorded per property, at the first write of that property while the group is
/// open (`UnitOfWork.willChange`), so an object edited many times costs one record per
/// property; the "after" side is read when the group closes. Relationship values hold the
/// objects themselves, not their IDs, so a save that makes temporary IDs permanent (or a
/// re-insert that gives an object a new ID) leaves the group valid. Holding them keeps the
/// objects alive as long as the group, as Core Data's undo manager does.
///
/// Used only on its context's queue, by ``ObjectUndoManager``.
final class UndoGroup {
    /// The name the app gave the action (`setActionName(_:)`), "" if none.
    var actionName = ""
    /// The objects changed, in order of first change.
    private(set) var entries: [UndoEntry] = []
    /// Position in `entries` by object.
    private var positions: [ObjectIdentifier: Int] = [:]

    var isEmpty: Bool { entries.isEmpty }

    /// The entry of `object`, created with `existedBefore` on its first change in the group.
    func entryIndex(for object: ManagedObject, existedBefore: @autoclosure () -> Bool) -> Int {
        if let position = positions[ObjectIdentifier(object)] { return position }
        entries.append(UndoEntry(object: object, existedBefore: existedBefore()))
        positions[ObjectIdentifier(object)] = entries.count - 1
        return entries.count - 1
    }

    /// Records the value in `slot` of `object` as it is now (before a write), unless the group
    /// already holds an older one. O(1) for attributes and to-ones; a to-many is loaded (one
    /// query if it was not) and costs O(its size).
    func recordBefore(_ slot: PropertySlot, of object: ManagedObject, in context: ManagedObjectContext) {
        let index = entryIndex(for: object, existedBefore: object.change != .deleted)
        guard !entries[index].slots.contains(slot), let value = UndoValue.read(slot, of: object, in: context) else { return }
        entries[index].slots.append(slot)
        entries[index].before.append(value)
    }

    /// Records all the relationships of `object` as they are now (the ones not recorded yet):
    /// called when the object is deleted, before a save can take its partners out of the
    /// context. Undoing the delete after a save removed the object (it then comes back with a
    /// new ID) restores them from these values.
    func recordRelationships(of object: ManagedObject, in context: ManagedObjectContext) {
        for slot in Self.relationshipSlots(of: object) { recordBefore(slot, of: object, in: context) }
    }

    private static func relationshipSlots(of object: ManagedObject) -> [PropertySlot] {
        let layout = object.entity.layout
        return (0..<layout.toOneRelationships.count).map(PropertySlot.toOne) + (0..<layout.toManyRelationships.count).map(PropertySlot.toMany)
    }

    /// Closes the group: reads the values and existence of each object in the graph after the
    /// group's changes, and drops what did not change in the end (values written back to what
    /// they were, objects inserted and deleted within the group). An object the group inserted
    /// also keeps all its relationships, for a redo after a save removed it. Objects out of the
    /// graph afterwards are not read (their values are never written back; a save may have
    /// taken their partners out of the context). Returns whether anything is left.
    func close(in context: ManagedObjectContext) -> Bool {
        var kept: [UndoEntry] = []
        kept.reserveCapacity(entries.count)
        for var entry in entries {
            entry.existsAfter = context.undoExists(entry.object)
            let existenceChanged = entry.existedBefore != entry.existsAfter
            var slots: [PropertySlot] = []
            var before: [UndoValue] = []
            var after: [UndoValue] = []
            for (position, slot) in entry.slots.enumerated() {
                let was = entry.before[position]
                let now: UndoValue
                if entry.existsAfter {
                    guard let read = UndoValue.read(slot, of: entry.object, in: context) else { continue }
                    now = read
                } else {
                    now = was
                }
                if now.isSame(as: was) && !existenceChanged { continue }
                slots.append(slot)
                before.append(was)
                after.append(now)
            }
            if existenceChanged && entry.existsAfter {
                for slot in Self.relationshipSlots(of: entry.object) where !slots.contains(slot) {
                    guard let now = UndoValue.read(slot, of: entry.object, in: context) else { continue }
                    slots.append(slot)
                    before.append(now)
                    after.append(now)
                }
            }
            entry.slots = slots
            entry.before = before
            entry.after = after
            if !slots.isEmpty || existenceChanged { kept.append(entry) }
        }
        entries = kept
        positions = [:]
        return !kept.isEmpty
    }
}

/// What one undo group knows of one object.
struct UndoEntry {
    /// The object (held strongly while the group lives).
    let object: ManagedObject
    /// Whether the object was in the graph (not deleted, not yet inserted) before the group.
    let existedBefore: Bool
    /// Whether it is in the graph after the group (set when the group closes).
    var existsAfter = true
    /// The properties that changed, with their values before and after (same positions).
    var slots: [PropertySlot] = []
    var before: [UndoValue] = []
    var after: [UndoValue] = []
}

/// A property value as an undo group keeps it.
enum UndoValue {
    case attribute(StoredValue)
    case transient(Any?)
    case toOne(ManagedObject?)
    case toMany([ManagedObject])

    /// The value in `slot` of `object` now; nil for slots that hold no value (fetched
    /// properties) or that the object's storage lacks.
    static func read(_ slot: PropertySlot, of object: ManagedObject, in context: ManagedObjectContext) -> UndoValue? {
        switch slot {
        case .attribute(let index):
            object.fireFaultIfNeeded()
            return index < object.attributeValues.count ? .attribute(object.attributeValues[index]) : nil
        case .transient(let index):
            object.fireFaultIfNeeded()
            let values = object.transientValues
            return index < values.count ? .transient(values[index]) : nil
        case .toOne(let index):
            object.fireFaultIfNeeded()
            guard index < object.toOneValues.count else { return nil }
            return .toOne(object.toOneValues[index].map { context.registeredOrFault($0) })
        case .toMany(let index):
            return .toMany(object.toManyIDs(slot: index).map { context.registeredOrFault($0) })
        case .fetched:
            return nil
        }
    }

    /// Whether two values are the same (transient values, of any type, are compared when they
    /// are hashable, else taken as different).
    func isSame(as other: UndoValue) -> Bool {
        switch (self, other) {
        case (.attribute(let a), .attribute(let b)): return a.isIdentical(to: b)
        case (.transient(let a), .transient(let b)):
            switch (a, b) {
            case (nil, nil): return true
            case (let a?, let b?):
                guard let a = a as? AnyHashable, let b = b as? AnyHashable else { return false }
                return a == b
            default: return false
            }
        case (.toOne(let a), .toOne(let b)): return a === b
        case (.toMany(let a), .toMany(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
        default: return false
        }
    }
}
