import Foundation

/// What a store's batch delete did: how many rows it deleted and, when the plan asks for them,
/// their IDs and the IDs of the rows that stay but lost a partner.
struct BatchDeleteOutcome {
    var count = 0
    var deleted: [ManagedObjectID] = []
    var changed: [ManagedObjectID] = []
    /// For each of ``changed`` (when the store records history): its relationships that lost a
    /// deleted row.
    var changedProperties: [ManagedObjectID: [String]] = [:]
    /// The values the deleted rows' tombstones keep (when the store records history).
    var tombstones: [ManagedObjectID: [String: StoredValue]] = [:]
}

extension BatchDeletePlan {
    /// Runs the delete by reading rows and saving one change set: the starting rows, the rows
    /// their `cascade` relationships reach (step by step), a check of the `deny` relationships,
    /// and the partners that stay with the deleted rows removed from their inverse. The save
    /// checks every row's version: when another save changed one in between, the whole delete
    /// runs again on fresh rows (a few times at most). For stores without SQL (the in-memory
    /// store and stores written against the public seam); the SQLite store runs
    /// `BatchDeleteStatements` instead, with the same rules. `origin` goes with the change set.
    func runByRows(on backend: any StoreBackend, origin: TransactionOrigin) throws -> BatchDeleteOutcome {
        let attempts = 8
        for attempt in 1...attempts {
            var (changes, outcome) = try changeSet(on: backend)
            changes.origin = origin  // a store that tracks history records it with the save
            do {
                _ = try backend.save(changes)
                return outcome
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge && attempt < attempts {
                continue  // a save changed one of the rows in between: read again
            }
        }
        throw StrataError(
            code: StrataError.Code.managedObjectMerge, message: "Batch delete of \(entity.name): other saves kept changing the rows it reaches; nothing was deleted",
            entityName: entity.name)
    }

    private func changeSet(on backend: any StoreBackend) throws -> (StoreChangeSet, BatchDeleteOutcome) {
        // 1. The starting rows, then every row the cascades reach.
        var frontier: [ManagedObjectID]
        switch selection {
        case .matching(let rows): frontier = try backend.fetchIDs(rows, options: .default)
        case .keys(let keys):
            let space = backend.token.space(for: entity)
            frontier = keys.map { ManagedObjectID(space: space, primaryKey: $0) }
        }
        var doomed: [ManagedObjectID: RowSnapshot] = [:]
        var order: [ManagedObjectID] = []
        while !frontier.isEmpty {
            let position = Dictionary(frontier.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
            var fresh: [RowSnapshot] = []
            let starting = order.isEmpty
            for row in try backend.snapshots(for: frontier, options: .default) where doomed[row.objectID] == nil {
                // A key of the starting rows may hold a row of another entity of the table.
                if starting && !entityCodes.contains(row.objectID.entity.layout.code) { continue }
                doomed[row.objectID] = row
                fresh.append(row)
            }
            fresh.sort { (position[$0.objectID] ?? 0) < (position[$1.objectID] ?? 0) }
            order += fresh.map(\.objectID)
            var next: [ManagedObjectID] = []
            var queued = Set<ManagedObjectID>()
            for relationship in rules.cascades {
                for (_, partner) in try pairs(relationship, owners: fresh, on: backend) where doomed[partner] == nil && queued.insert(partner).inserted {
                    next.append(partner)
                }
            }
            frontier = next
        }
        let rows = order.compactMap { doomed[$0] }
        // 2. Deny rules: a partner that exists and stays refuses the delete.
        for relationship in rules.denies {
            let blocking = try pairs(relationship, owners: rows, on: backend).filter { doomed[$0.partner] == nil }
            guard !blocking.isEmpty else { continue }
            let existing = Set(try backend.snapshots(for: blocking.map(\.partner), options: .default).map(\.objectID))
            if let (owner, _) = blocking.first(where: { existing.contains($0.partner) }) {
                throw StrataError(
                    code: StrataError.Code.validationRelationshipDeniedDelete,
                    message:
                        "Batch delete of \(entity.name): \(owner.entity.name) \(owner.uriRepresentation().absoluteString) cannot be deleted: its relationship '\(relationship.name)' still holds an object that is not deleted (delete rule deny); nothing was deleted",
                    entityName: owner.entity.name, key: relationship.name, objectID: owner)
            }
        }
        // 3. Partners that stay lose the deleted rows: a foreign key to one is cleared, and a
        // partner's to-many loses them (a to-many change; the membership itself goes with the
        // deleted row or its join rows). Each such partner gets a new version.
        var cleared: [ManagedObjectID: Set<Int>] = [:]
        var touched: [ManagedObjectID] = []
        var lost: [ManagedObjectID: [(relationship: RelationshipDescription, members: [ManagedObjectID])]] = [:]
        for relationship in rules.nullifies {
            guard let inverse = relationship.inverseRelationship else { continue }
            for (owner, partner) in try pairs(relationship, owners: rows, on: backend) where doomed[partner] == nil {
                if cleared[partner] == nil {
                    cleared[partner] = []
                    touched.append(partner)
                }
                if !inverse.isToMany, case .toOne(let slot)? = partner.entity.layout.slot(forKey: inverse.name) {
                    cleared[partner]?.insert(slot)
                } else if inverse.isToMany {
                    if let index = lost[partner]?.firstIndex(where: { $0.relationship === inverse }) {
                        lost[partner]?[index].members.append(owner)
                    } else {
                        lost[partner, default: []].append((inverse, [owner]))
                    }
                }
            }
        }
        var changes = StoreChangeSet()
        var outcome = BatchDeleteOutcome(count: rows.count, deleted: returnsObjectIDs ? order : [])
        if !touched.isEmpty {
            for partner in try backend.snapshots(for: touched, options: .default) {
                var toOne = partner.toOne
                var slots: [Int] = []
                for slot in (cleared[partner.objectID] ?? []).sorted() where slot < toOne.count {
                    // Only a key that still points at a deleted row is cleared.
                    if let target = toOne[slot], doomed[target] != nil {
                        toOne[slot] = nil
                        slots.append(slot)
                    }
                }
                changes.updates.append(
                    RowChange(
                        objectID: partner.objectID, baseVersion: partner.version, attributes: partner.attributes, toOne: toOne, changedAttributeSlots: [],
                        changedToOneSlots: slots, base: partner))
                for (relationship, members) in lost[partner.objectID] ?? [] {
                    changes.toManyChanges.append(ToManyChange(owner: partner.objectID, relationship: relationship, added: [], removed: members))
                }
                if returnsChangedIDs { outcome.changed.append(partner.objectID) }
            }
        }
        changes.deletes = rows.map { RowDeletion(objectID: $0.objectID, baseVersion: $0.version, base: $0) }
        return (changes, outcome)
    }

    /// The (owner, partner) pairs of `relationship` for those of `owners` that have it.
    private func pairs(_ relationship: RelationshipDescription, owners: [RowSnapshot], on backend: any StoreBackend) throws -> [(owner: ManagedObjectID, partner: ManagedObjectID)] {
        guard let declaring = relationship.entity else { return [] }
        let having = owners.filter { $0.entity.isKindOf(entity: declaring) }
        guard !having.isEmpty else { return [] }
        if !relationship.isToMany {
            return having.compactMap { row in
                guard case .toOne(let slot)? = row.entity.layout.slot(forKey: relationship.name), slot < row.toOne.count, let partner = row.toOne[slot] else { return nil }
                return (row.objectID, partner)
            }
        }
        let members = try backend.toManyIDs(of: having.map(\.objectID), relationship: relationship, options: .default)
        return having.flatMap { row in (members[row.objectID] ?? []).map { (row.objectID, $0) } }
    }
}
