import Foundation

/// A context as the parent store of its child contexts. Each call runs on this context's queue
/// (the calling child waits: waits only go up the tree) and sees this context's unsaved state.
/// A read it cannot answer itself goes to its own parent store with the child's `ReadOptions`.
extension ManagedObjectContext: ParentStore {
    var rootCoordinator: PersistentStoreCoordinator? { persistentStoreCoordinator }

    /// The object's current values as a snapshot (firing it if needed); transient to-ones are
    /// not part of it (see ``ParentStore``).
    func currentSnapshot(of object: ManagedObject) -> RowSnapshot {
        object.fireFaultIfNeeded()
        return RowSnapshot.make(
            objectID: object.objectID, version: object.snapshot?.version ?? 0,
            attributes: object.attributeValues, toOne: object.entity.layout.storedToOnes(object.toOneValues))
    }

    func fetchRows(_ plan: FetchPlan, options: ReadOptions) throws -> [RowSnapshot] {
        try performAndWait {
            try objectsForChild(plan, options: options).map(currentSnapshot)
        }
    }

    func fetchIDs(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObjectID] {
        try performAndWait {
            if hasPendingChanges(for: plan) { return try objectsForChild(plan, options: options).map(\.objectID) }
            return try requireParentStore().fetchIDs(plan, options: options)
        }
    }

    func fetchIDList(_ plan: FetchPlan, options: ReadOptions) throws -> ObjectIDList {
        ObjectIDList(try fetchIDs(plan, options: options), entity: plan.entity)
    }

    func count(_ plan: FetchPlan, options: ReadOptions) throws -> Int {
        try performAndWait {
            if hasPendingChanges(for: plan) { return try objectsForChild(plan, options: options).count }
            return try requireParentStore().count(plan, options: options)
        }
    }

    private func objectsForChild(_ plan: FetchPlan, options: ReadOptions) throws -> [ManagedObject] {
        if hasPendingChanges(for: plan) { return try objects(matching: plan.with(resultKind: .rows), options: options) }
        let rows = try requireParentStore().fetchRows(plan.with(resultKind: .rows), options: options)
        return rows.map { register($0, asFault: true, refresh: false) }
    }

    func snapshots(for ids: [ManagedObjectID], options: ReadOptions) throws -> [RowSnapshot] {
        try performAndWait {
            var result: [RowSnapshot] = []
            var forward: [(asked: ManagedObjectID, wanted: ManagedObjectID)] = []
            for id in ids {
                if let object = findRegistered(id) {
                    if object.change == .deleted { continue }
                    if object.change != .none || !object.isFaultStorage {
                        result.append(currentSnapshot(of: object))
                        continue
                    }
                    if let snapshot = object.snapshot {
                        result.append(snapshot)
                        continue
                    }
                }
                if let id = forwardable(id) { forward.append(id) }
            }
            if !forward.isEmpty { result += try relabeled(requireParentStore().snapshots(for: forward.map(\.asked), options: options), forward) }
            return result
        }
    }

    /// An ID this context does not hold, as it can be asked of the parent store: a permanent ID
    /// as is; a temporary one as is when the parent is a context (which may hold the object —
    /// this context may have saved it up and released its copy), else — at the root — as the
    /// permanent ID a root save gave it (the answer is relabelled with the temporary ID).
    private func forwardable(_ id: ManagedObjectID) -> (asked: ManagedObjectID, wanted: ManagedObjectID)? {
        guard id.isTemporaryID else { return (id, id) }
        if parent != nil { return (id, id) }
        guard let permanent = persistentStoreCoordinator?.temporaryIDAliases.permanent(for: id) else { return nil }
        return (permanent, id)
    }

    /// Snapshots answered for permanent IDs that stand for temporary ones asked for, under the
    /// temporary IDs.
    private func relabeled(_ snapshots: [RowSnapshot], _ forwarded: [(asked: ManagedObjectID, wanted: ManagedObjectID)]) -> [RowSnapshot] {
        let wanted = Dictionary(forwarded.filter { $0.asked != $0.wanted }.map { ($0.asked, $0.wanted) }, uniquingKeysWith: { first, _ in first })
        if wanted.isEmpty { return snapshots }
        return snapshots.map { snapshot in
            guard let temporary = wanted[snapshot.objectID] else { return snapshot }
            return RowSnapshot.make(objectID: temporary, version: snapshot.version, attributes: snapshot.attributes, toOne: snapshot.toOne, fetchedAt: snapshot.fetchedAt)
        }
    }

    func toManyIDs(of ids: [ManagedObjectID], relationship: RelationshipDescription, options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        // A transient to-many is not reported down the tree (see `ParentStore`).
        if relationship.isTransient { return emptyToManyContents(of: ids) }
        return try performAndWait {
            var result: [ManagedObjectID: [ManagedObjectID]] = [:]
            var forward: [(asked: ManagedObjectID, wanted: ManagedObjectID)] = []
            for id in ids {
                if let object = findRegistered(id), case .toMany(let slot)? = object.entity.layout.slot(forKey: relationship.name),
                    object.change != .none || (slot < object.toManyValues.count && object.toManyValues[slot] != nil)
                {
                    result[id] = object.toManyIDs(slot: slot)
                } else if let id = forwardable(id) {
                    forward.append(id)
                } else {
                    result[id] = []
                }
            }
            if !forward.isEmpty {
                let answered = try requireParentStore().toManyIDs(of: forward.map(\.asked), relationship: relationship, options: options)
                for (asked, wanted) in forward { result[wanted] = answered[asked] ?? [] }
            }
            return result
        }
    }

    /// Applies a child's save to this context's objects (the store is not touched). Like a
    /// store's optimistic locking, it first checks that each object the child updates or
    /// deletes still has the values the child read from this context; if not, nothing is
    /// applied and the save fails with a merge conflict (133020) for the child's merge policy to
    /// resolve (Core Data's nested-context conflicts).
    func save(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        let origin = StrataTrace.flowOrigin()
        return try performAndWait {
            try StrataTrace.span("apply child save", .save) {
                StrataTrace.flowArrives(from: origin, "child save pushed into parent")
                return try applyChildSave(changes)
            }
        }
    }

    /// `save(_:)`'s work, on this context's queue.
    private func applyChildSave(_ changes: StoreChangeSet) throws -> StoreSaveResult {
        // The objects checked stay alive until the changes are applied to them: an
        // unchanged object is held only weakly, and one fired again could be newer.
        let checked = try checkChildBase(changes)
        defer { withExtendedLifetime(checked) {} }
        for insert in changes.inserts {
            let entity = insert.objectID.entity
            let object = findRegistered(insert.objectID) ?? entity.managedObjectClass.init(entity: entity, insertInto: nil)
            if object.link == nil {
                object.objectID = insert.objectID
                prepareStorage(of: object, defaults: true)
                attach(object)
            }
            object.isFaultStorage = false
            // A draft of its own: the child's draft stays on the child's queue (see
            // `StoredValues.copiedIntoOwnDraft(objectID:)`).
            object.attributeValues = insert.attributes.copiedIntoOwnDraft(objectID: insert.objectID)
            object.toOneValues = insert.toOne
            for slot in 0..<entity.layout.storedAttributes.count { object.changedMask.insert(slot) }
            state.work.insert(object)
            noteEvent(.inserted, for: object)
        }
        for update in changes.updates {
            let object = registeredOrFault(update.objectID)
            object.fireFaultIfNeeded()
            let layout = object.entity.layout
            for slot in update.changedAttributeSlots where slot < object.attributeValues.count && slot < update.attributes.count {
                object.willChange(.attribute(slot))
                object.attributeValues[slot] = update.attributes[slot]
                object.markChanged(.attribute(slot))
            }
            for slot in update.changedToOneSlots where slot < object.toOneValues.count && slot < update.toOne.count {
                object.willChange(.toOne(slot))
                object.toOneValues[slot] = update.toOne[slot]
                object.markChanged(.toOne(slot))
            }
            _ = layout
        }
        for change in changes.toManyChanges {
            let object = registeredOrFault(change.owner)
            guard case .toMany(let slot)? = object.entity.layout.slot(forKey: change.relationship.name) else { continue }
            object.willChange(.toMany(slot))
            object.ensureToManyLoaded(slot: slot)
            guard slot < object.toManyValues.count, var value = object.toManyValues[slot] else { continue }
            for id in change.removed { value.remove(id) }
            for id in change.added { value.append(id) }
            if let ordered = change.ordered { value = ToManyValue(ordered) }
            object.toManyValues[slot] = value
            object.markChanged(.toMany(slot))
        }
        for deletion in changes.deletes {
            let object = registeredOrFault(deletion.objectID)
            object.fireFaultIfNeeded()
            if object.change != .deleted { markDeleted(object) }
        }
        return StoreSaveResult()
    }

    /// Throws 133020 listing the objects that changed here since the child read them; returns
    /// the objects checked.
    private func checkChildBase(_ changes: StoreChangeSet) throws -> [ManagedObject] {
        var conflicts: [MergeConflict] = []
        var checked: [ManagedObject] = []
        for update in changes.updates where !update.ignoresVersion {
            guard let base = update.base else { continue }
            let (object, conflict) = childConflict(update.objectID, base: base, childValues: update)
            if let object { checked.append(object) }
            if let conflict { conflicts.append(conflict) }
        }
        for deletion in changes.deletes where !deletion.ignoresVersion {
            guard let base = deletion.base else { continue }
            let (object, conflict) = childConflict(deletion.objectID, base: base, childValues: nil)
            if let object { checked.append(object) }
            if let conflict { conflicts.append(conflict) }
        }
        guard !conflicts.isEmpty else { return checked }
        var error = StrataError(code: StrataError.Code.managedObjectMerge, message: "Optimistic locking failure: \(conflicts.count) object(s) changed in the parent context since the child read them")
        error.conflicts = conflicts
        throw error
    }

    /// This context's object for `id` (fired), and a conflict when it no longer has the values
    /// `base` the child read — or no longer exists here: an object inserted here and rolled
    /// back since (a temporary ID nobody holds), or a row deleted meanwhile. Nothing is recorded
    /// on this context for an object that is gone.
    private func childConflict(_ id: ManagedObjectID, base: RowSnapshot, childValues: RowChange?) -> (ManagedObject?, MergeConflict?) {
        var object = findRegistered(id)
        if object == nil && !id.isTemporaryID { object = registeredOrFault(id) }
        var gone = object == nil
        if let object {
            do {
                try loadFault(object)
            } catch {
                gone = true
            }
            gone = gone || object.change == .deleted || object.link == nil
            if !gone && sameValues(object, as: base) { return (object, nil) }
        }
        let objectSnapshot =
            childValues.map {
                RowSnapshot.make(objectID: id, version: base.version, attributes: $0.attributes, toOne: $0.toOne).printable()
            } ?? [:]
        let persisted = gone ? nil : object.map(currentSnapshot)
        return (
            object,
            MergeConflict(
                objectID: id, oldVersionNumber: base.version, newVersionNumber: persisted?.version ?? 0,
                cachedSnapshot: base.printable(), persistedSnapshot: persisted?.printable(), objectSnapshot: objectSnapshot)
        )
    }

    /// Whether the object's stored attributes and stored to-ones are those of `base` (a to-one
    /// target may appear under its temporary or its permanent ID; transient to-ones are not
    /// in `base`).
    private func sameValues(_ object: ManagedObject, as base: RowSnapshot) -> Bool {
        guard object.attributeValues.count == base.attributes.count, object.toOneValues.count == base.toOne.count else { return false }
        for (current, read) in zip(object.attributeValues, base.attributes) where !current.isIdentical(to: read) { return false }
        let aliases = persistentStoreCoordinator?.temporaryIDAliases
        for (current, read) in zip(object.entity.layout.storedToOnes(object.toOneValues), base.toOne) where current != read {
            guard let current, let read, let aliases else { return false }
            let same = aliases.permanent(for: current) == read || aliases.permanent(for: read) == current
            if !same { return false }
        }
        return true
    }

    func obtainPermanentIDs(for temporaryIDs: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObjectID] {
        let mapping = try requireParentStore().obtainPermanentIDs(for: temporaryIDs)
        performAndWait { adoptPermanentIDs(mapping) }
        return mapping
    }

    /// Gives registered objects their new permanent IDs and rewrites references to them.
    func adoptPermanentIDs(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        for (temporary, permanent) in mapping {
            guard let object = findRegistered(temporary) else { continue }
            object.objectID = permanent
            state.registry.rekey(object, from: temporary)
        }
        for object in state.work.inserted.objects + state.work.updated.objects {
            object.toOneValues = object.toOneValues.mapped { id in id.flatMap { mapping[$0] ?? $0 } }
            for slot in object.toManyValues.indices {
                guard let value = object.toManyValues[slot], value.ids.contains(where: \.isTemporaryID) else { continue }
                object.toManyValues[slot] = ToManyValue(value.ids.map { mapping[$0] ?? $0 })
            }
        }
    }

    /// Gives `objects` permanent IDs now, before they are saved (Core Data's
    /// `obtainPermanentIDs(for:)`). Call on the context's queue.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        checkAccess("obtainPermanentIDs(for:)")
        let temporary = objects.filter { $0.objectID.isTemporaryID && $0.link === self }.map(\.objectID)
        guard !temporary.isEmpty else { return }
        let mapping = try requireParentStore().obtainPermanentIDs(for: temporary)
        adoptPermanentIDs(mapping)
    }
}
