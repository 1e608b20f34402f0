import Foundation

/// Deleting objects and applying delete rules.
extension ManagedObjectContext {
    /// Deletes `object` when the context is saved. Delete rules run now: `prepareForDeletion()`
    /// is called, `nullify` removes the object from its partners' inverse relationships,
    /// `cascade` deletes the partners too (each object once, cycles included), `deny` is checked
    /// at save (a validation error while the relationship is not empty), `noAction` leaves the
    /// partners pointing at the deleted object, as in Core Data. Call on the context's queue.
    public func delete(_ object: ManagedObject) {
        checkAccess("delete(_:)")
        guard object.link === self else {
            recordContextProblem(StrataError(code: StrataError.Code.coreData, message: "delete(_:) was given a \(object.entity.name) object of another context", entityName: object.entity.name, objectID: object.objectID))
            return
        }
        var visited = Set<ObjectIdentifier>()
        deleteApplyingRules(object, visited: &visited)
    }

    private func deleteApplyingRules(_ object: ManagedObject, visited: inout Set<ObjectIdentifier>) {
        guard object.change != .deleted, visited.insert(ObjectIdentifier(object)).inserted else { return }
        object.fireFaultIfNeeded()
        if object.change == .deleted { return }  // the fault's row was already gone
        object.prepareForDeletion()
        // Gather partners before marking: rules read the relationships as they stand.
        var cascades: [ManagedObject] = []
        let layout = object.entity.layout
        for (slot, relationship) in layout.toOneRelationships.enumerated() {
            guard slot < object.toOneValues.count, let targetID = object.toOneValues[slot] else { continue }
            let target = registeredOrFault(targetID)
            apply(relationship.deleteRule, from: object, to: target, via: relationship, cascades: &cascades)
        }
        for (slot, relationship) in layout.toManyRelationships.enumerated() {
            if relationship.deleteRule == .noAction || relationship.deleteRule == .deny { continue }
            for target in object.toManyObjects(slot: slot) {
                apply(relationship.deleteRule, from: object, to: target, via: relationship, cascades: &cascades)
            }
        }
        markDeleted(object)
        for target in cascades {
            deleteApplyingRules(target, visited: &visited)
        }
    }

    private func apply(_ rule: RelationshipDescription.DeleteRule, from object: ManagedObject, to target: ManagedObject, via relationship: RelationshipDescription, cascades: inout [ManagedObject]) {
        switch rule {
        case .nullify:
            if let inverse = relationship.inverseRelationship, target.change != .deleted {
                target.inverseRemove(object, via: inverse)
            }
        case .cascade:
            if let inverse = relationship.inverseRelationship, target.change != .deleted {
                target.inverseRemove(object, via: inverse)
            }
            cascades.append(target)
        case .deny, .noAction:
            break
        }
    }

    /// Marks an object deleted without applying rules.
    func markDeleted(_ object: ManagedObject) {
        let wasInserted = object.change == .inserted
        object.change = .deleted
        noteEvent(.deleted, for: object)
        state.updated.remove(object)
        if wasInserted {
            // Inserted and deleted before any save: it simply goes away.
            state.inserted.remove(object)
        } else {
            state.deleted.insert(object)
        }
    }

    /// Re-inserting a deleted object undoes the delete (its values stay as they are).
    func undelete(_ object: ManagedObject) {
        state.deleted.remove(object)
        if object.snapshot == nil {
            object.change = .inserted
            state.inserted.insert(object)
        } else if object.changedMask.isEmpty {
            object.change = .none
        } else {
            object.change = .updated
            state.updated.insert(object)
        }
    }
}
