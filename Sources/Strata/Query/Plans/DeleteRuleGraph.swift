/// The delete rules a batch delete applies, worked out once from the model: which entities can
/// lose rows (the starting ones and, following `cascade` relationships, their destinations) and
/// which relationships of those entities cascade, deny, or clear the inverse of the rows that
/// stay. Shared by the SQL of the SQLite store (`BatchDeleteStatements`) and the row-by-row path
/// of the other stores, so both apply the same rules as a context's `delete(_:)`. Transient
/// relationships are left out: they are not stored.
struct DeleteRuleGraph {
    /// Every entity whose rows the delete may remove (sub-entities listed on their own).
    let deletable: [EntityDescription]
    /// Relationships whose destinations are deleted with their owner (rule `cascade`).
    let cascades: [RelationshipDescription]
    /// Relationships that refuse the delete while they hold a row that stays (rule `deny`).
    let denies: [RelationshipDescription]
    /// Relationships with a stored inverse whose rule (`nullify`) removes the deleted row from
    /// its partners' inverse: the partners that stay change. (A `cascade` relationship's
    /// partners are all deleted: none stays to change.)
    let nullifies: [RelationshipDescription]

    /// The rules reached from deleting rows of `entities` (each is taken with its sub-entities).
    init(startingAt entities: [EntityDescription]) {
        var deletable: [EntityDescription] = []
        var seenEntities = Set<ObjectIdentifier>()
        var pending = entities
        var cascades: [RelationshipDescription] = []
        var denies: [RelationshipDescription] = []
        var nullifies: [RelationshipDescription] = []
        var seenRelationships = Set<ObjectIdentifier>()
        while let next = pending.popLast() {
            for entity in Self.selfAndDescendants(next) where seenEntities.insert(ObjectIdentifier(entity)).inserted {
                deletable.append(entity)
                let layout = entity.layout
                for relationship in layout.toOneRelationships + layout.toManyRelationships where !relationship.isTransient {
                    guard seenRelationships.insert(ObjectIdentifier(relationship)).inserted, let destination = relationship.destinationEntity else { continue }
                    switch relationship.deleteRule {
                    case .cascade:
                        cascades.append(relationship)
                        pending.append(destination)
                    case .deny:
                        denies.append(relationship)
                    case .nullify, .noAction:
                        break
                    }
                    if relationship.deleteRule == .nullify, let inverse = relationship.inverseRelationship, !inverse.isTransient {
                        nullifies.append(relationship)
                    }
                }
            }
        }
        self.deletable = deletable
        self.cascades = cascades
        self.denies = denies
        self.nullifies = nullifies
    }

    private static func selfAndDescendants(_ entity: EntityDescription) -> [EntityDescription] {
        var result = [entity]
        var index = 0
        while index < result.count {
            result += result[index].subentities
            index += 1
        }
        return result
    }

    /// Whether deleting a row can change other rows or tables: false when only the matching
    /// rows go (no cascade, deny or inverse to clear).
    var reachesOtherRows: Bool { !cascades.isEmpty || !denies.isEmpty || !nullifies.isEmpty }

    /// The inheritance roots (tables) whose rows the delete may remove or change, by identity.
    var touchedRoots: Set<ObjectIdentifier> {
        var roots = Set(deletable.map { $0.layout.rootIdentifier })
        for relationship in nullifies {
            if let destination = relationship.destinationEntity { roots.insert(destination.layout.rootIdentifier) }
        }
        return roots
    }
}
