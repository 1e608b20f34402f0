import Dispatch
import Foundation

/// An immutable copy of one object's stored values at one version, as its parent store (the
/// coordinator, or a parent context) last reported it.
///
/// Snapshots are `Sendable`: they are what crosses queues when a context fetches, fires a fault
/// or merges a save. Attribute values are in stored form (see ``AttributeCodec``), in the slot
/// order of the entity's layout.
final class RowSnapshot: Sendable {
    let objectID: ManagedObjectID
    /// The row version (optimistic-locking counter); 0 for objects never saved.
    let version: Int64
    /// Stored attribute values, by attribute slot.
    let attributes: ContiguousArray<StoredValue>
    /// To-one relationship targets, by to-one slot.
    let toOne: ContiguousArray<ManagedObjectID?>
    /// When the values were read from the store (monotonic nanoseconds), for `stalenessInterval`.
    let fetchedAt: UInt64

    init(objectID: ManagedObjectID, version: Int64, attributes: ContiguousArray<StoredValue>, toOne: ContiguousArray<ManagedObjectID?>, fetchedAt: UInt64 = RowSnapshot.now()) {
        self.objectID = objectID
        self.version = version
        self.attributes = attributes
        self.toOne = toOne
        self.fetchedAt = fetchedAt
    }

    /// The monotonic clock snapshots are stamped with.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the snapshot is young enough for a context with `stalenessInterval` (negative:
    /// any age; 0: never reuse).
    func isFresh(stalenessInterval: TimeInterval) -> Bool {
        if stalenessInterval < 0 { return true }
        let age = Double(Self.now() &- fetchedAt) / 1_000_000_000
        return age <= stalenessInterval
    }

    var entity: EntityDescription { objectID.entity }

    /// The value of a stored attribute by name (nil for unknown names).
    func storedValue(forKey key: String) -> StoredValue? {
        guard case .attribute(let slot)? = entity.layout.slots[key], slot < attributes.count else { return nil }
        return attributes[slot]
    }

    /// A printable `[key: value]` rendering, used in conflict reports.
    func printable() -> [String: String] {
        var result: [String: String] = [:]
        let layout = entity.layout
        for (slot, attribute) in layout.storedAttributes.enumerated() where slot < attributes.count {
            result[attribute.name] = AttributeCodec.decode(attributes[slot], for: attribute).map { String(describing: $0) } ?? "nil"
        }
        for (slot, relationship) in layout.toOneRelationships.enumerated() where slot < toOne.count {
            result[relationship.name] = toOne[slot].map { $0.uriRepresentation().absoluteString } ?? "nil"
        }
        return result
    }
}
