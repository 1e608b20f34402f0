import Foundation

/// Saving with a merge policy: optimistic-locking conflicts (133020) and uniqueness-constraint
/// conflicts (133021) are either reported or resolved as Core Data's policies do, then the
/// save is retried.
extension ManagedObjectContext {
    /// How many times a save retries after resolving conflicts (other contexts may keep saving).
    static let maximumConflictRetries = 8

    struct SaveAttempt {
        var changes: StoreChangeSet
        var result: StoreSaveResult
    }

    func saveResolvingConflicts(to parent: any ParentStore) throws -> SaveAttempt {
        let policy = mergePolicy
        var overwrite = Set<ManagedObjectID>()
        var attempts = 0
        try resolveUniquenessConflicts(policy: policy, parent: parent)
        while true {
            var changes = state.work.makeChangeSet(keepingBases: self.parent != nil)
            if self.parent == nil { changes.origin = transactionOrigin }
            if !overwrite.isEmpty {
                for index in changes.updates.indices where overwrite.contains(changes.updates[index].objectID) {
                    changes.updates[index].ignoresVersion = true
                }
                for index in changes.deletes.indices where overwrite.contains(changes.deletes[index].objectID) {
                    changes.deletes[index].ignoresVersion = true
                }
            }
            do {
                return SaveAttempt(changes: changes, result: try parent.save(changes))
            } catch var error as StrataError where error.code == StrataError.Code.managedObjectMerge {
                attempts += 1
                guard policy.kind != .error, attempts <= Self.maximumConflictRetries else {
                    error.conflicts = error.conflicts.map(completed)
                    throw error
                }
                for conflict in error.conflicts {
                    try resolve(conflict, policy: policy, parent: parent, overwrite: &overwrite)
                }
            } catch let error as StrataError where error.code == StrataError.Code.managedObjectConstraintMerge {
                attempts += 1
                guard policy.kind != .error, attempts <= Self.maximumConflictRetries else { throw error }
                // Another context inserted a matching row meanwhile: resolve against it and retry.
                try resolveUniquenessConflicts(policy: policy, parent: parent)
            }
        }
    }

    /// Adds this context's view (cached snapshot, current values) to a conflict from the store.
    private func completed(_ conflict: MergeConflict) -> MergeConflict {
        var result = conflict
        if let object = findRegistered(conflict.objectID) {
            result.cachedSnapshot = object.snapshot?.printable() ?? [:]
            if object.change != .deleted {
                result.objectSnapshot = RowSnapshot.make(objectID: object.objectID, version: conflict.oldVersionNumber, attributes: object.attributeValues, toOne: object.toOneValues).printable()
            }
        }
        return result
    }

    /// Resolves one optimistic-locking conflict in memory according to `policy`.
    private func resolve(_ conflict: MergeConflict, policy: MergePolicy, parent: any ParentStore, overwrite: inout Set<ManagedObjectID>) throws {
        guard let object = findRegistered(conflict.objectID) else { return }
        let fresh = try parent.snapshots(for: [conflict.objectID], options: ReadOptions(maxAge: 0)).first
        switch (object.change, fresh) {
        case (.deleted, let fresh?):
            switch policy.kind {
            case .mergeByPropertyObjectTrump, .overwrite:
                overwrite.insert(object.objectID)  // the delete wins
            default:
                // The store's newer row wins over the delete: the object comes back with it.
                state.work.markClean(object, because: .merged)
                object.loadValues(from: fresh)
            }
        case (.deleted, nil):
            // Deleted here and in the store: nothing left to do.
            detach(object)
        case (_, nil):
            switch policy.kind {
            case .mergeByPropertyObjectTrump, .overwrite:
                // The object's state wins over the store's delete: write it back as a new row
                // with the same key.
                object.snapshot = nil
                state.work.insert(object, because: .merged)
            default:
                // The store's delete wins: the object leaves the context.
                detach(object)
            }
        case (_, let fresh?) where policy.kind == .rollback:
            // The store's state replaces every change of the object.
            state.work.markClean(object, because: .rolledBack)
            object.loadValues(from: fresh)
            noteEvent(.refreshed, for: object)
        case (_, let fresh?) where policy.kind == .overwrite:
            // The object's whole state is written over the store's newer row.
            let layout = object.entity.layout
            var changed = object.changedMask
            for slot in 0..<layout.storedAttributes.count { changed.insert(slot) }
            object.snapshot = fresh
            object.changedMask = changed
            overwrite.insert(object.objectID)
            state.work.recordValues(object, because: .merged)
            noteEvent(.refreshed, for: object)
        case (_, let fresh?):
            // Merge by property: the one three-way merge, the policy naming the winner.
            state.work.mergeUnsavedChanges(of: object, with: fresh, winner: policy.kind == .mergeByPropertyStoreTrump ? .store : .object)
            state.work.recordValues(object, because: .merged)
            noteEvent(.refreshed, for: object)
        }
    }

    // MARK: Uniqueness constraints

    /// Checks each inserted object of a constrained entity against the parent store (and the
    /// other inserted objects). Under `.error` a duplicate is a constraint conflict (133021);
    /// under the trump policies the new object merges into the existing row (it takes the
    /// existing object's ID), the object's values winning (`…ObjectTrump`, `.overwrite`) or the
    /// store's (`…StoreTrump`, `.rollback`).
    func resolveUniquenessConflicts(policy: MergePolicy, parent: any ParentStore) throws {
        var conflicts: [MergeConflict] = []
        var seen: [String: ManagedObject] = [:]
        // Most saves insert runs of one entity: its constraints are gathered once per run.
        var lastEntity: EntityDescription?
        var lastConstraints: [(EntityDescription, [String])] = []
        for object in state.work.inserted {
            if object.entity !== lastEntity {
                lastEntity = object.entity
                lastConstraints = Self.uniquenessConstraints(of: object.entity)
            }
            let constraints = lastConstraints
            guard !constraints.isEmpty else { continue }
            for (owner, keys) in constraints {
                guard let values = constrainedValues(of: object, keys: keys) else { continue }
                // Duplicates among this save's own inserts.
                let signature = owner.name + "|" + keys.joined(separator: ",") + "|" + values.map(PredicateFormatter.literal).joined(separator: ",")
                if let earlier = seen[signature], earlier !== object {
                    if policy.kind == .error {
                        conflicts.append(constraintConflict(object, keys: keys, existing: earlier.objectID, persisted: nil))
                    } else {
                        mergeDuplicateInsert(object, into: earlier, objectWins: policy.kind == .mergeByPropertyObjectTrump || policy.kind == .overwrite)
                    }
                    continue
                }
                seen[signature] = object
                // A matching row in the parent store.
                let predicate = ObjectPredicate.and(
                    zip(keys, values).map { key, value in
                        ObjectPredicate(node: .comparison(ComparisonNode(modifier: .direct, lhs: .keyPath([key]), op: .equal, options: [], rhs: .constant(value))))
                    })
                let plan = try FetchPlan.make(entity: owner, predicate: predicate, sortDescriptors: [], limit: 1, offset: 0, includesSubentities: true, resultKind: .rows)
                guard let existing = try parent.fetchRows(plan, options: .default).first, existing.objectID != object.objectID else { continue }
                if let registered = findRegistered(existing.objectID), registered.change == .deleted {
                    continue  // the existing object is being deleted in this very save
                }
                if policy.kind == .error {
                    conflicts.append(constraintConflict(object, keys: keys, existing: existing.objectID, persisted: existing))
                } else {
                    adoptExistingRow(existing, for: object, objectWins: policy.kind == .mergeByPropertyObjectTrump || policy.kind == .overwrite)
                }
            }
        }
        if !conflicts.isEmpty {
            var error = StrataError(
                code: StrataError.Code.managedObjectConstraintMerge, message: "Uniqueness constraint conflict: \(conflicts.count) inserted object(s) duplicate existing ones",
                entityName: conflicts.first?.objectID.entityName)
            error.conflicts = conflicts
            throw error
        }
    }

    static func uniquenessConstraints(of entity: EntityDescription) -> [(EntityDescription, [String])] {
        var result: [(EntityDescription, [String])] = []
        var current: EntityDescription? = entity
        while let candidate = current {
            for constraint in candidate.uniquenessConstraints { result.append((candidate, constraint)) }
            current = candidate.superentity
        }
        return result
    }

    /// The values of `keys` as predicate constants; nil when one is nil (NULLs never collide).
    private func constrainedValues(of object: ManagedObject, keys: [String]) -> [PredicateValue]? {
        var values: [PredicateValue] = []
        for key in keys {
            guard let raw = object.value(forKey: key), let value = PredicateValue(any: raw) else { return nil }
            if case .null = value { return nil }
            values.append(value)
        }
        return values
    }

    private func constraintConflict(_ object: ManagedObject, keys: [String], existing: ManagedObjectID, persisted: RowSnapshot?) -> MergeConflict {
        MergeConflict(
            objectID: object.objectID, oldVersionNumber: 0, newVersionNumber: persisted?.version ?? 0, cachedSnapshot: [:],
            persistedSnapshot: persisted?.printable(),
            objectSnapshot: RowSnapshot.make(objectID: object.objectID, version: 0, attributes: object.attributeValues, toOne: object.toOneValues).printable(),
            constraint: keys, conflictingObjectID: existing)
    }

    /// The inserted object becomes the existing row's object.
    private func adoptExistingRow(_ existing: RowSnapshot, for object: ManagedObject, objectWins: Bool) {
        if let registered = findRegistered(existing.objectID), registered !== object {
            // The existing object is loaded here too: the inserted one's values go into it.
            if objectWins {
                copyValues(from: object, to: registered)
            }
            detach(object)
            return
        }
        let old = object.objectID
        object.objectID = existing.objectID
        state.registry.rekey(object, from: old)
        let layout = object.entity.layout
        if objectWins {
            object.snapshot = existing
            var mask = ChangeMask()
            for slot in 0..<layout.storedAttributes.count where slot < existing.attributes.count && !existing.attributes[slot].isIdentical(to: object.attributeValues[slot]) {
                mask.insert(slot)
            }
            let toOneStart = layout.storedAttributes.count + layout.transientAttributes.count
            for slot in 0..<layout.toOneRelationships.count where slot < existing.toOne.count && existing.toOne[slot] != object.toOneValues[slot] {
                mask.insert(toOneStart + slot)
            }
            object.changedMask = mask
            state.work.markUpdated(object, because: .merged)
        } else {
            state.work.markClean(object, because: .merged)
            object.loadValues(from: existing)
        }
        object.committedToMany = ToManyValue.unloadedList(count: layout.toManyRelationships.count)
    }

    private func mergeDuplicateInsert(_ object: ManagedObject, into earlier: ManagedObject, objectWins: Bool) {
        if objectWins { copyValues(from: object, to: earlier) }
        detach(object)
    }

    private func copyValues(from source: ManagedObject, to target: ManagedObject) {
        let layout = target.entity.layout
        for (slot, attribute) in layout.storedAttributes.enumerated() where slot < source.attributeValues.count {
            if let value = AttributeCodec.decode(source.attributeValues[slot], for: attribute) {
                target.setValue(value, forKey: attribute.name)
            }
        }
    }
}
