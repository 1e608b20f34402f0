import Dispatch
import Foundation

/// One object's stored values at one version (Core Data's `NSIncrementalStoreNode`): what a
/// store returns for a row, and, inside Strata, the snapshot a context keeps of what its parent
/// store (the coordinator, or a parent context) last reported.
///
/// Nodes are immutable and `Sendable`: they are what crosses queues when a context fetches,
/// fires a fault or merges a save. Inside, attribute values are in stored form (see
/// `AttributeCodec`) in the slot order of the entity's layout; stores outside Strata make and
/// read nodes by property name (``init(objectID:values:version:)``, ``value(forKey:)``).
public final class IncrementalStoreNode: Sendable {
    /// The object the values belong to.
    public let objectID: ManagedObjectID
    /// The row version (optimistic-locking counter); 0 for objects never saved.
    public let version: Int64
    /// Stored attribute values, by attribute slot.
    let attributes: ContiguousArray<StoredValue>
    /// To-one relationship targets, by to-one slot.
    let toOne: ContiguousArray<ManagedObjectID?>
    /// When the values were read from the store (monotonic nanoseconds), for `stalenessInterval`.
    let fetchedAt: UInt64

    init(objectID: ManagedObjectID, version: Int64, attributes: ContiguousArray<StoredValue>, toOne: ContiguousArray<ManagedObjectID?>, fetchedAt: UInt64 = IncrementalStoreNode.now()) {
        self.objectID = objectID
        self.version = version
        self.attributes = attributes
        self.toOne = toOne
        self.fetchedAt = fetchedAt
    }

    /// The monotonic clock snapshots are stamped with.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the snapshot is young enough for a context with `stalenessInterval` (negative:
    /// any age; 0: never reuse). The clock is read only for a non-negative interval: a context's
    /// default is −1, and every fault a fetch left with its row asks this when it fires.
    @inline(__always)
    func isFresh(stalenessInterval: TimeInterval) -> Bool {
        stalenessInterval < 0 || isFresh(stalenessInterval: stalenessInterval, now: Self.now())
    }

    /// Whether the snapshot is young enough at `now` (a reading of ``now()``): for loops that
    /// check many snapshots against one clock reading.
    @inline(__always)
    func isFresh(stalenessInterval: TimeInterval, now: UInt64) -> Bool {
        if stalenessInterval < 0 { return true }
        let age = Double(now &- fetchedAt) / 1_000_000_000
        return age <= stalenessInterval
    }

    /// The entity of the object.
    public var entity: EntityDescription { objectID.entity }

    /// The value of a stored attribute by name (nil for unknown names).
    func storedValue(forKey key: String) -> StoredValue? {
        guard case .attribute(let slot)? = entity.layout.slot(forKey: key), slot < attributes.count else { return nil }
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

    // MARK: By property name (the public face)

    /// A node for `objectID` at `version` with the given values: attribute names to Swift values
    /// of their types (`nil` or absent: no value), to-one names to `ManagedObjectID`s. Throws a
    /// ``StrataError`` naming the key for an unknown key (transient properties included: a
    /// store holds none) or a value of the wrong type.
    public convenience init(objectID: ManagedObjectID, values: [String: Any], version: Int64) throws {
        let entity = objectID.entity
        let layout = entity.layout
        var attributes = ContiguousArray<StoredValue>(repeating: .null, count: layout.storedAttributes.count)
        var toOne = ContiguousArray<ManagedObjectID?>(repeating: nil, count: layout.toOneRelationships.count)
        for (key, value) in values {
            switch layout.slot(forKey: key) {
            case .attribute(let slot)?:
                switch AttributeCodec.encode(value, for: layout.storedAttributes[slot]) {
                case .success(let stored): attributes[slot] = stored
                case .failure(let problem):
                    throw StrataError(code: problem.code, message: problem.message, entityName: entity.name, key: key, objectID: objectID)
                }
            case .toOne(let slot)? where !layout.transientToOneSlots.contains(slot):
                guard let target = AttributeCodec.unwrapOptional(value) else { continue }
                guard let id = target as? ManagedObjectID else {
                    throw StrataError(
                        code: StrataError.Code.managedObjectValidation, message: "To-one '\(key)' of a store node takes a ManagedObjectID, not \(type(of: target))",
                        entityName: entity.name, key: key, objectID: objectID)
                }
                toOne[slot] = id
            default:
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "Entity '\(entity.name)' has no stored attribute or to-one named '\(key)'",
                    entityName: entity.name, key: key, objectID: objectID)
            }
        }
        self.init(objectID: objectID, version: version, attributes: attributes, toOne: toOne)
    }

    /// The stored attributes of `entity` in the order ``init(objectID:version:attributeValues:toOneTargets:)``
    /// takes their values (inherited ones included). Any thread, once the model is in use.
    public static func storedAttributes(of entity: EntityDescription) -> [AttributeDescription] { entity.layout.storedAttributes }

    /// The to-one relationships of `entity` in the order ``init(objectID:version:attributeValues:toOneTargets:)``
    /// takes their targets (transient ones included: their targets are ignored). Any thread,
    /// once the model is in use.
    public static func toOneRelationships(of entity: EntityDescription) -> [RelationshipDescription] { entity.layout.toOneRelationships }

    /// A node for `objectID` at `version` from values by position — the fast form for a store
    /// that reads many rows: `attributeValues[i]` is the value of
    /// `storedAttributes(of: entity)[i]` in its Swift type (nil: no value), `toOneTargets[i]` the
    /// target of `toOneRelationships(of: entity)[i]`; missing trailing entries are nil. Throws a
    /// ``StrataError`` naming the attribute for a value of the wrong type, and one for more
    /// values than the entity has.
    public convenience init(objectID: ManagedObjectID, version: Int64, attributeValues: [Any?], toOneTargets: [ManagedObjectID?]) throws {
        let entity = objectID.entity
        let layout = entity.layout
        guard attributeValues.count <= layout.storedAttributes.count, toOneTargets.count <= layout.toOneRelationships.count else {
            throw StrataError(
                code: StrataError.Code.managedObjectValidation,
                message:
                    "A store node of '\(entity.name)' got \(attributeValues.count) attribute values and \(toOneTargets.count) to-one targets for \(layout.storedAttributes.count) and \(layout.toOneRelationships.count)",
                entityName: entity.name, objectID: objectID)
        }
        var attributes = ContiguousArray<StoredValue>(repeating: .null, count: layout.storedAttributes.count)
        for (slot, value) in attributeValues.enumerated() {
            guard let value else { continue }
            switch AttributeCodec.encode(value, for: layout.storedAttributes[slot]) {
            case .success(let stored): attributes[slot] = stored
            case .failure(let problem):
                throw StrataError(code: problem.code, message: problem.message, entityName: entity.name, key: layout.storedAttributes[slot].name, objectID: objectID)
            }
        }
        var toOne = ContiguousArray<ManagedObjectID?>(repeating: nil, count: layout.toOneRelationships.count)
        for (slot, target) in toOneTargets.enumerated() where !layout.transientToOneSlots.contains(slot) { toOne[slot] = target }
        self.init(objectID: objectID, version: version, attributes: attributes, toOne: toOne)
    }

    /// The value of a stored attribute (as its Swift type) or a to-one (as a `ManagedObjectID`);
    /// `nil` for no value or an unknown key.
    public func value(forKey key: String) -> Any? {
        let layout = entity.layout
        switch layout.slot(forKey: key) {
        case .attribute(let slot)? where slot < attributes.count:
            return AttributeCodec.decode(attributes[slot], for: layout.storedAttributes[slot])
        case .toOne(let slot)? where slot < toOne.count:
            return toOne[slot]
        default:
            return nil
        }
    }
}

/// The name the context and coordinator use for a node they keep: a snapshot of a row.
typealias RowSnapshot = IncrementalStoreNode
