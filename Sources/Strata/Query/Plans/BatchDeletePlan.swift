/// A batch delete (`BatchDeleteRequest`) resolved against its entity: which rows it starts from
/// (those a fetch plan matches, or those of some object IDs) and the delete rules it applies
/// (``rules``). Built on the requesting context's queue; immutable, so it may be handed to the
/// store.
struct BatchDeletePlan: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; holds frozen model descriptions and a
    // bound predicate whose constants are Sendable values.

    /// The rows the delete starts from.
    enum Selection {
        /// The rows a fetch plan matches (its sorts only matter with a limit or an offset).
        case matching(FetchPlan)
        /// The rows of these primary keys whose entity is one of `entityCodes`.
        case keys([Int64])
    }

    /// The entity the delete starts from.
    let entity: EntityDescription
    let selection: Selection
    /// The entity codes of the starting rows.
    let entityCodes: [Int64]
    /// The delete rules reached from the starting entities.
    let rules: DeleteRuleGraph
    /// Whether the store returns the IDs of the deleted rows (else only their number). A store
    /// that records history turns it on for itself.
    var returnsObjectIDs: Bool
    /// Whether the store returns the IDs of the rows that stay but lost a partner (turned on by
    /// a store that records history, as `returnsObjectIDs`).
    var returnsChangedIDs: Bool
    /// Whether the deleted rows must be read before they go (a store that records history
    /// reads the values its tombstones keep): the delete is never one bare statement then.
    var readsDeletedRows = false

    /// A delete of the rows `fetch` matches. Sort descriptors are bound only when a limit or an
    /// offset makes them choose rows. Throws, naming the entity and key, for malformed predicates,
    /// unknown keys and type mismatches.
    static func matching(
        entity: EntityDescription, predicate: ObjectPredicate?, sortDescriptors: [ObjectSortDescriptor], limit: Int, offset: Int, includesSubentities: Bool,
        returnsObjectIDs: Bool, returnsChangedIDs: Bool
    ) throws -> BatchDeletePlan {
        let windowed = limit > 0 || offset > 0
        let rows = try FetchPlan.make(
            entity: entity, predicate: predicate, sortDescriptors: windowed ? sortDescriptors : [], limit: limit, offset: offset,
            includesSubentities: includesSubentities, resultKind: .objectIDs)
        return BatchDeletePlan(
            entity: entity, selection: .matching(rows), entityCodes: rows.entityCodes,
            rules: DeleteRuleGraph(startingAt: [entity]), returnsObjectIDs: returnsObjectIDs, returnsChangedIDs: returnsChangedIDs)
    }

    /// A delete of the rows of `ids`, all of `entity` and of one store (the caller groups them).
    /// Throws for a temporary ID (an unsaved object has no row) and an ID of another entity.
    static func objects(_ ids: [ManagedObjectID], entity: EntityDescription, returnsObjectIDs: Bool, returnsChangedIDs: Bool) throws -> BatchDeletePlan {
        var keys: [Int64] = []
        keys.reserveCapacity(ids.count)
        for id in ids {
            guard id.entity === entity else {
                throw StrataError(
                    code: StrataError.Code.coreData,
                    message: "A batch delete by object IDs takes IDs of one entity: \(id.entity.name) \(id.uriRepresentation().absoluteString) is not a \(entity.name)",
                    entityName: entity.name, objectID: id)
            }
            guard let key = id.primaryKey else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "A batch delete cannot delete the unsaved \(entity.name) \(id.uriRepresentation().absoluteString): it has no row in a store",
                    entityName: entity.name, objectID: id)
            }
            keys.append(key)
        }
        return BatchDeletePlan(
            entity: entity, selection: .keys(keys), entityCodes: [entity.layout.code], rules: DeleteRuleGraph(startingAt: [entity]),
            returnsObjectIDs: returnsObjectIDs, returnsChangedIDs: returnsChangedIDs)
    }
}
