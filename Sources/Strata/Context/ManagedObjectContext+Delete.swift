import Foundation

/// Deleting objects and applying delete rules.
extension ManagedObjectContext {
    /// Deletes `object` when the context is saved, applying the delete rules now.
    ///
    /// `prepareForDeletion()` is called (also when the object is already deleted, as in Core
    /// Data; nothing else happens then), then each relationship's rule runs: `nullify` removes
    /// the object from its partners' inverse relationships, `cascade` does that and deletes the
    /// partners too (recursively; each object is deleted once, cycles and diamonds included),
    /// `deny` is checked by `save()` (a 1600 validation error naming the object and the
    /// relationship while it still holds objects), and `noAction` leaves the partners pointing
    /// at the deleted object, a dangling reference, as in Core Data. Partners are loaded in
    /// batches (one query per relationship and step), not one by one. Deleting an object that
    /// was inserted and never saved simply removes it. Call on the context's queue.
    public func delete(_ object: ManagedObject) {
        checkAccess("delete(_:)")
        guard object.link === self else {
            recordContextProblem(
                StrataError(
                    code: StrataError.Code.coreData, message: "delete(_:) was given a \(object.entity.name) object of another context", entityName: object.entity.name, objectID: object.objectID))
            return
        }
        // Deleting a deleted object again changes nothing, but Core Data still calls
        // `prepareForDeletion()` on it for every `delete(_:)`.
        if object.change == .deleted {
            object.prepareForDeletion()
            return
        }
        // A work list rather than recursion: a long cascade chain cannot overflow the stack.
        var pending = [object]
        var visited = Set<ObjectIdentifier>()
        while let next = pending.popLast() {
            deleteApplyingRules(next, visited: &visited, cascades: &pending)
        }
    }

    private func deleteApplyingRules(_ object: ManagedObject, visited: inout Set<ObjectIdentifier>, cascades: inout [ManagedObject]) {
        guard object.change != .deleted, visited.insert(ObjectIdentifier(object)).inserted else { return }
        object.fireFaultIfNeeded()
        if object.change == .deleted { return }  // the fault's row was already gone
        object.prepareForDeletion()
        let layout = object.entity.layout
        for (slot, relationship) in layout.toOneRelationships.enumerated() {
            let rule = relationship.deleteRule
            guard rule == .nullify || rule == .cascade, slot < object.toOneValues.count, let targetID = object.toOneValues[slot] else { continue }
            let inverse = layout.inverse(of: .toOne(slot))
            if rule == .nullify && inverse == nil { continue }
            apply(rule, from: object, to: registeredOrFault(targetID), inverse: inverse, cascades: &cascades)
        }
        for (slot, relationship) in layout.toManyRelationships.enumerated() {
            let rule = relationship.deleteRule
            guard rule == .nullify || rule == .cascade else { continue }
            let inverse = layout.inverse(of: .toMany(slot))
            if rule == .nullify && inverse == nil { continue }  // nothing points back: nothing to do
            let targets = object.toManyObjects(slot: slot)
            if inverse != nil || rule == .cascade { preloadValues(of: targets) }
            if let inverse { preloadToMany(inverse, of: targets) }
            if rule == .cascade { preloadRuleRelationships(of: targets) }
            for target in targets {
                apply(rule, from: object, to: target, inverse: inverse, cascades: &cascades)
            }
        }
        markDeleted(object)
    }

    private func apply(_ rule: RelationshipDescription.DeleteRule, from object: ManagedObject, to target: ManagedObject, inverse: InverseLink?, cascades: inout [ManagedObject]) {
        switch rule {
        case .nullify, .cascade:
            if let inverse, target.change != .deleted {
                target.inverseRemove(object, at: inverse.slot)
            }
            if rule == .cascade { cascades.append(target) }
        case .deny, .noAction:
            break
        }
    }

    /// Loads the values of the faults among `objects` in one query (they are about to be
    /// edited or deleted). A failure is left for the faults to report when they fire.
    private func preloadValues(of objects: [ManagedObject]) {
        let ids = objects.filter { $0.isFaultStorage && $0.snapshot == nil && !$0.objectID.isTemporaryID }.map(\.objectID)
        guard ids.count > 1, let rows = try? requireParentStore().snapshots(for: ids, options: .default) else { return }
        for row in rows {
            if let object = state.registry.object(for: row.objectID), object.isFaultStorage, object.snapshot == nil {
                object.snapshot = row
                object.faultBatch = nil
            }
        }
    }

    /// Loads, for objects about to be cascaded, every to-many whose rule will read it
    /// (nullify, cascade): one query per relationship for all of them, not one per object.
    private func preloadRuleRelationships(of objects: [ManagedObject]) {
        var seen = Set<ObjectIdentifier>()
        for object in objects {
            for relationship in object.entity.layout.toManyRelationships where relationship.deleteRule == .nullify || relationship.deleteRule == .cascade {
                guard seen.insert(ObjectIdentifier(relationship)).inserted, let slot = object.entity.layout.slot(forKey: relationship.name) else { continue }
                let owners = objects.filter { $0.entity.layout.slot(forKey: relationship.name) == slot }
                preloadToMany(InverseLink(relationship: relationship, slot: slot), of: owners)
            }
        }
    }

    /// Loads the to-many `link` of each of `objects` that has not loaded it, in one query.
    private func preloadToMany(_ link: InverseLink, of objects: [ManagedObject]) {
        guard case .toMany(let slot) = link.slot else { return }
        let owners = objects.filter { object in
            object.change != .inserted && !object.objectID.isTemporaryID
                && slot < object.toManyValues.count && object.toManyValues[slot] == nil
        }
        guard owners.count > 1, let loaded = try? requireParentStore().toManyIDs(of: owners.map(\.objectID), relationship: link.relationship, options: .default) else { return }
        for owner in owners { owner.installLoadedToMany(slot: slot, ids: loaded[owner.objectID] ?? []) }
    }

    /// Marks an object deleted without applying rules. An object inserted and never saved simply
    /// goes away at the next save (there is no row to delete).
    func markDeleted(_ object: ManagedObject) {
        noteEvent(.deleted, for: object)
        state.work.delete(object)
    }

    /// Re-inserting a deleted object undoes the delete (its values stay as they are).
    func undelete(_ object: ManagedObject) {
        state.work.undelete(object)
    }
}
