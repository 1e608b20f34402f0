import Foundation

/// What the relationship proxies share: the owner, the to-many slot they edit, and the checks
/// every edit makes (queue, deleted owner, target entity and context). Used on the owner's
/// context's queue.
struct ToManyEditor {
    let owner: ManagedObject
    let key: String
    /// The to-many slot; nil when `key` names no usable to-many (the problem was recorded when
    /// the proxy was made, and every read is empty, every edit ignored).
    let slot: Int?

    /// Finds the to-many slot for `key`, recording a problem for the next save when `key` is
    /// unknown, not a to-many, or (with `ordered`) not an ordered to-many.
    init(owner: ManagedObject, key: String, ordered: Bool, call: String) {
        self.owner = owner
        self.key = key
        let entity = owner.entity
        switch entity.layout.slot(forKey: key) {
        case .toMany(let index)?:
            if ordered && !entity.layout.toManyRelationships[index].isOrdered {
                owner.record(Self.problem(owner, key, "\(call): '\(entity.name).\(key)' is not an ordered relationship; use mutableSetValue(forKey:)"))
                slot = nil
            } else {
                slot = index
            }
        case nil:
            owner.record(Self.problem(owner, key, "\(call): entity '\(entity.name)' has no property named '\(key)'"))
            slot = nil
        default:
            owner.record(Self.problem(owner, key, "\(call): '\(entity.name).\(key)' is not a to-many relationship"))
            slot = nil
        }
    }

    private static func problem(_ owner: ManagedObject, _ key: String, _ message: String) -> StrataError {
        StrataError(code: StrataError.Code.managedObjectValidation, message: message, entityName: owner.entity.name, key: key, objectID: owner.objectID)
    }

    var relationship: RelationshipDescription? {
        slot.map { owner.entity.layout.toManyRelationships[$0] }
    }

    /// The current IDs, in order (loading them on first use).
    var ids: [ManagedObjectID] {
        guard let slot else { return [] }
        return owner.toManyIDs(slot: slot)
    }

    /// Whether `object` is in the relationship.
    func contains(_ object: ManagedObject) -> Bool {
        guard let slot else { return false }
        owner.ensureToManyLoaded(slot: slot)
        return slot < owner.toManyValues.count && owner.toManyValues[slot]?.contains(object.objectID) == true
    }

    /// The current objects, in order, as `Element` (objects of another class are skipped).
    func objects<Element: ManagedObject>(as type: Element.Type) -> [Element] {
        guard let slot else { return [] }
        return owner.toManyObjects(slot: slot).compactMap { $0 as? Element }
    }

    /// The object at `index`, or nil when out of range.
    func object(at index: Int) -> ManagedObject? {
        let current = ids
        guard index >= 0, index < current.count else { return nil }
        return owner.relatedObject(current[index])
    }

    /// The slot to edit, or nil when the edit must be ignored (no usable slot, or a deleted
    /// owner: recorded for the next save).
    func editableSlot() -> Int? {
        guard let slot else { return nil }
        if owner.change == .deleted {
            owner.record(Self.problem(owner, key, "'\(key)' was changed on a deleted \(owner.entity.name)"))
            return nil
        }
        return slot
    }

    /// Whether `target` may join the relationship (recorded when not).
    func accepts(_ target: ManagedObject) -> Bool {
        guard let relationship else { return false }
        return owner.checkTarget(target, relationship: relationship)
    }

    /// Records an out-of-range index for the next save.
    func recordRange(_ call: String, index: Int, count: Int) {
        owner.record(Self.problem(owner, key, "\(call): index \(index) is out of range for '\(owner.entity.name).\(key)', which holds \(count) object(s)"))
    }

    func add(_ target: ManagedObject, at index: Int? = nil) {
        guard let slot = editableSlot(), accepts(target) else { return }
        owner.addToMany(target, slot: slot, at: index)
    }

    func remove(_ target: ManagedObject) {
        guard let slot = editableSlot() else { return }
        owner.removeFromToMany(target, slot: slot)
    }

    func removeAll() {
        guard let slot = editableSlot() else { return }
        owner.replaceToMany(slot: slot, with: [], maintainingInverse: true)
    }
}
