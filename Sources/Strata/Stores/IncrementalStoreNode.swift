import Foundation

/// One object's stored values at one version (Core Data's `NSIncrementalStoreNode`): what a
/// store built on ``IncrementalStore`` returns for a row, and how a save hands it the rows to
/// write.
///
/// Nodes are immutable and `Sendable`: they cross queues as rows do. Inside, a node carries the
/// row snapshot Strata's contexts keep (attribute values in stored form, see `AttributeCodec`,
/// in the slot order of the entity's layout: `Stores/RowSnapshot.swift`); stores outside Strata
/// make and read nodes by property name (``init(objectID:values:version:)``,
/// ``value(forKey:)``) or by position (``init(objectID:version:attributeValues:toOneTargets:)``).
public final class IncrementalStoreNode: Sendable {
    /// The row the node carries.
    let row: RowSnapshot

    /// A node carrying `row`.
    init(row: RowSnapshot) { self.row = row }

    /// The object the values belong to.
    public var objectID: ManagedObjectID { row.objectID }
    /// The row version (optimistic-locking counter); 0 for objects never saved.
    public var version: Int64 { row.version }

    /// The entity of the object.
    public var entity: EntityDescription { objectID.entity }

    // MARK: By property name (the public face)

    /// A node for `objectID` at `version` with the given values: attribute names to Swift values
    /// of their types (`nil` or absent: no value), to-one names to `ManagedObjectID`s. Throws a
    /// ``StrataError`` naming the key for an unknown key (transient properties included: a
    /// store holds none) or a value of the wrong type.
    public convenience init(objectID: ManagedObjectID, values: [String: Any], version: Int64) throws {
        let entity = objectID.entity
        let layout = entity.layout
        var attributes = StoredValues(repeating: .null, count: layout.storedAttributes.count)
        var toOne = ToOneValues(repeating: nil, count: layout.toOneRelationships.count)
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
        self.init(row: RowSnapshot.make(objectID: objectID, version: version, attributes: attributes, toOne: toOne, fetchedAt: StoreReadClock.rowReadTime))
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
        // The values and targets are encoded straight into the row; a value of the wrong type is
        // kept as NULL there (every slot gets a value) and reported once the row is made.
        var failure: (slot: Int, problem: ValueProblem)?
        let toOneCount = layout.toOneRelationships.count
        let fetchedAt = StoreReadClock.rowReadTime
        let row = RowSnapshot.make(objectID: objectID, version: version, fetchedAt: fetchedAt, count: layout.storedAttributes.count, toOneCount: toOneCount) { values, targets in
            Self.initializeTargets(targets, from: toOneTargets, layout: layout)
            for slot in 0..<layout.storedAttributes.count {
                var stored = StoredValue.null
                if slot < attributeValues.count, let value = attributeValues[slot], failure == nil {
                    switch AttributeCodec.encode(value, for: layout.storedAttributes[slot]) {
                    case .success(let encoded): stored = encoded
                    case .failure(let problem): failure = (slot, problem)
                    }
                }
                (values + slot).initialize(to: stored)
            }
        }
        if let failure {
            throw StrataError(
                code: failure.problem.code, message: failure.problem.message, entityName: entity.name, key: layout.storedAttributes[failure.slot].name, objectID: objectID)
        }
        self.init(row: row)
    }

    /// Initializes the layout's to-one slots at `targets` from `toOneTargets` by position: missing
    /// trailing entries and transient to-ones are nil (a store holds no transient target).
    static func initializeTargets(_ targets: UnsafeMutablePointer<ManagedObjectID?>, from toOneTargets: [ManagedObjectID?], layout: EntityLayout) {
        for slot in 0..<layout.toOneRelationships.count {
            let stored = slot < toOneTargets.count && !layout.transientToOneSlots.contains(slot) ? toOneTargets[slot] : nil
            (targets + slot).initialize(to: stored)
        }
    }

    /// The value of a stored attribute (as its Swift type) or a to-one (as a `ManagedObjectID`);
    /// `nil` for no value or an unknown key.
    public func value(forKey key: String) -> Any? {
        let layout = entity.layout
        switch layout.slot(forKey: key) {
        case .attribute(let slot)? where slot < row.valueCount:
            return AttributeCodec.decode(row.value(at: slot), for: layout.storedAttributes[slot])
        case .toOne(let slot)? where slot < row.toOneCount:
            return row.toOne(at: slot)
        default:
            return nil
        }
    }
}
