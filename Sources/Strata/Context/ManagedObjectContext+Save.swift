import Foundation

/// Saving: hooks, validation, one transaction, then the new state.
extension ManagedObjectContext {
    /// The most passes of `willSave()` over objects that earlier passes changed.
    static let maximumWillSavePasses = 10

    /// Saves the context's changes to its parent store: the coordinator's stores for a root
    /// context (one transaction: all of it lands or none of it does), the parent context for a
    /// child. Temporary IDs become permanent at the root save.
    ///
    /// Before writing, `willSave()` runs on each changed object (again for objects it changed,
    /// up to a bound), then every object is validated; all problems are collected in one
    /// ``StrataError`` (1560 when there are several). A failed save leaves the store unchanged
    /// and the context's changes in place, so they can be fixed and saved again.
    /// Call on the context's queue.
    public func save() throws {
        checkAccess("save()")
        if state.isSaving {
            throw StrataError(code: StrataError.Code.coreData, message: "save() was called while the context was already saving (from willSave or a notification observer)")
        }
        processPendingChanges()
        guard hasChanges || !state.problemObjects.isEmpty || !state.contextProblems.isEmpty else { return }
        state.isSaving = true
        defer { state.isSaving = false }
        post(ContextChanges(name: .managedObjectContextWillSave), userInfo: [:])
        let saving = try runWillSave()
        try loadPendingRelationshipEdits()
        processPendingChanges()
        try validateForSave(saving)
        let parent = try requireParentStore()
        let result = try saveResolvingConflicts(to: parent)
        finishSave(changes: result.changes, result: result.result, saved: SavingObjects(inserted: state.inserted.objects, updated: state.updated.objects, deleted: state.deleted.objects))
    }

    /// The objects a save writes.
    struct SavingObjects {
        var inserted: [ManagedObject]
        var updated: [ManagedObject]
        var deleted: [ManagedObject]
    }

    /// Calls `willSave()` on each changed object; objects changed by those calls get another
    /// pass, up to `maximumWillSavePasses`.
    private func runWillSave() throws -> SavingObjects {
        var called = Set<ObjectIdentifier>()
        var passes = 0
        while true {
            let pending = (state.inserted.objects + state.updated.objects + state.deleted.objects).filter { !called.contains(ObjectIdentifier($0)) }
            if pending.isEmpty { break }
            passes += 1
            if passes > Self.maximumWillSavePasses {
                throw StrataError(
                    code: StrataError.Code.coreData,
                    message: "willSave() kept changing objects after \(Self.maximumWillSavePasses) passes; a willSave() override probably changes a value on every call")
            }
            for object in pending { object.changedSinceWillSave = false }
            for object in pending {
                called.insert(ObjectIdentifier(object))
                object.willSave()
            }
            // An object changed during this pass (by its own willSave or another's) gets one more call.
            for object in state.inserted.objects + state.updated.objects + state.deleted.objects where object.changedSinceWillSave {
                object.changedSinceWillSave = false
                called.remove(ObjectIdentifier(object))
            }
        }
        return SavingObjects(inserted: state.inserted.objects, updated: state.updated.objects, deleted: state.deleted.objects)
    }

    /// Validates every changed object and reports recorded problems; throws them all at once.
    private func validateForSave(_ saving: SavingObjects) throws {
        var errors: [StrataError] = state.contextProblems
        for object in state.problemObjects.objects where object.change != .deleted || state.deleted.contains(object) {
            errors += object.recordedProblems
        }
        func collect(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as StrataError {
                errors += error.allErrors
            } catch {
                errors.append(StrataError(code: StrataError.Code.managedObjectValidation, message: "\(error)"))
            }
        }
        for object in saving.inserted { collect { try object.validateForInsert() } }
        for object in saving.updated { collect { try object.validateForUpdate() } }
        for object in saving.deleted { collect { try object.validateForDelete() } }
        if let error = StrataError.combining(errors) { throw error }
    }

    /// The stored form of the context's changes.
    func makeChangeSet() -> StoreChangeSet {
        var changes = StoreChangeSet()
        for object in state.inserted.objects {
            let layout = object.entity.layout
            changes.inserts.append(
                RowChange(
                    objectID: object.objectID, baseVersion: 0, attributes: object.attributeValues, toOne: object.toOneValues,
                    changedAttributeSlots: Array(0..<layout.storedAttributes.count), changedToOneSlots: Array(0..<layout.toOneRelationships.count)))
            appendToManyChanges(of: object, to: &changes)
        }
        for object in state.updated.objects {
            let layout = object.entity.layout
            var attributeSlots: [Int] = []
            var toOneSlots: [Int] = []
            let attributeCount = layout.storedAttributes.count
            let toOneStart = attributeCount + layout.transientAttributes.count
            for index in object.changedMask.indexes {
                if index < attributeCount {
                    attributeSlots.append(index)
                } else if index >= toOneStart && index < toOneStart + layout.toOneRelationships.count {
                    toOneSlots.append(index - toOneStart)
                }
            }
            changes.updates.append(
                RowChange(
                    objectID: object.objectID, baseVersion: object.snapshot?.version ?? 0, attributes: object.attributeValues,
                    toOne: object.toOneValues, changedAttributeSlots: attributeSlots, changedToOneSlots: toOneSlots, base: object.snapshot))
            appendToManyChanges(of: object, to: &changes)
        }
        for object in state.deleted.objects {
            changes.deletes.append(RowDeletion(objectID: object.objectID, baseVersion: object.snapshot?.version ?? 0, base: object.snapshot))
        }
        return changes
    }

    private func appendToManyChanges(of object: ManagedObject, to changes: inout StoreChangeSet) {
        let layout = object.entity.layout
        for (slot, relationship) in layout.toManyRelationships.enumerated() {
            guard slot < object.toManyValues.count, let current = object.toManyValues[slot] else { continue }
            let committed = (slot < object.committedToMany.count ? object.committedToMany[slot] : nil) ?? ToManyValue()
            if current == committed && object.change != .inserted { continue }
            if current.count == 0 && committed.count == 0 { continue }
            let added = current.ids.filter { !committed.contains($0) }
            let removed = committed.ids.filter { !current.contains($0) }
            let orderChanged = relationship.isOrdered && current.ids != committed.ids
            guard !added.isEmpty || !removed.isEmpty || orderChanged else { continue }
            changes.toManyChanges.append(
                ToManyChange(
                    owner: object.objectID, relationship: relationship, added: added, removed: removed,
                    ordered: relationship.isOrdered ? current.ids : nil))
        }
    }

    /// Applies a successful save: permanent IDs, new committed snapshots, cleared changes,
    /// `didSave()` and the did-save notification.
    func finishSave(changes: StoreChangeSet, result: StoreSaveResult, saved: SavingObjects) {
        let permanentIDs = result.permanentIDs
        state.lastPermanentIDs = permanentIDs
        func remap(_ id: ManagedObjectID?) -> ManagedObjectID? {
            guard let id else { return nil }
            return permanentIDs[id] ?? id
        }
        let insertedObjects = state.inserted.objects
        let updatedObjects = state.updated.objects
        let deletedObjects = state.deleted.objects
        // New IDs first, so every reference below can be remapped.
        for object in insertedObjects {
            if let permanent = permanentIDs[object.objectID] {
                let old = object.objectID
                object.objectID = permanent
                state.registry.rekey(object, from: old)
            }
        }
        for object in insertedObjects + updatedObjects {
            if !permanentIDs.isEmpty {
                if object.toOneValues.contains(where: { $0?.isTemporaryID == true }) {
                    object.toOneValues = ContiguousArray(object.toOneValues.map(remap))
                }
                for slot in object.toManyValues.indices {
                    guard let value = object.toManyValues[slot], value.ids.contains(where: \.isTemporaryID) else { continue }
                    object.toManyValues[slot] = ToManyValue(value.ids.map { permanentIDs[$0] ?? $0 })
                }
            }
            let version = result.versions[object.objectID] ?? ((object.snapshot?.version ?? 0) + (parent == nil ? 1 : 0))
            object.snapshot = RowSnapshot(objectID: object.objectID, version: version, attributes: object.attributeValues, toOne: object.toOneValues)
            object.committedToMany = object.toManyValues
            object.change = .none
            object.changedMask.removeAll()
        }
        var deletedIDs: [ManagedObjectID] = []
        for object in deletedObjects {
            deletedIDs.append(object.objectID)
            detach(object)
            object.snapshot = nil
        }
        if parent == nil, let coordinator = persistentStoreCoordinator {
            coordinator.didSave(snapshots: (insertedObjects + updatedObjects).compactMap(\.snapshot), deleted: deletedIDs)
            advancePinnedGenerationAfterSave()
        }
        // Objects inserted then deleted before this save never reached the store.
        state.inserted.removeAll()
        state.updated.removeAll()
        state.deleted.removeAll()
        clearProblems()
        for object in insertedObjects + updatedObjects + deletedObjects {
            object.eventChanges = []
            object.didSave()
        }
        state.eventObjects.removeAll { $0.eventChanges.isEmpty }
        let changes = ContextChanges(
            name: .managedObjectContextDidSave, inserted: Set(insertedObjects.map(\.objectID)),
            updated: Set(updatedObjects.map(\.objectID)), deleted: Set(deletedIDs))
        post(
            changes,
            userInfo: [
                ManagedObjectContext.NotificationKey.insertedObjects: Set(insertedObjects),
                ManagedObjectContext.NotificationKey.updatedObjects: Set(updatedObjects),
                ManagedObjectContext.NotificationKey.deletedObjects: Set(deletedObjects),
            ])
        post(ContextChanges(name: .managedObjectContextDidSaveObjectIDs, inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted), userInfo: [:])
        didSaveChanges(changes)
    }
}

extension Notification.Name {
    /// Posted on the context's queue before a save writes anything.
    public static let managedObjectContextWillSave = Notification.Name("StrataManagedObjectContextWillSave")
    /// Posted on the context's queue after a save succeeded; the user info holds the saved
    /// objects and their IDs.
    public static let managedObjectContextDidSave = Notification.Name("StrataManagedObjectContextDidSave")
    /// Posted on the context's queue at the end of each event that changed objects.
    public static let managedObjectContextObjectsDidChange = Notification.Name("StrataManagedObjectContextObjectsDidChange")
    /// Posted after a save with only the IDs of the saved objects (safe to read on any queue).
    public static let managedObjectContextDidSaveObjectIDs = Notification.Name("StrataManagedObjectContextDidSaveObjectIDs")
}

extension ManagedObjectContext {
    /// User-info keys of the context notifications (Core Data's `NSInsertedObjectsKey`, …).
    public enum NotificationKey {
        public static let insertedObjects = "inserted"
        public static let updatedObjects = "updated"
        public static let deletedObjects = "deleted"
        public static let refreshedObjects = "refreshed"
        public static let invalidatedObjects = "invalidated"
        public static let invalidatedAllObjects = "invalidatedAll"
        public static let insertedObjectIDs = "inserted_objectIDs"
        public static let updatedObjectIDs = "updated_objectIDs"
        public static let deletedObjectIDs = "deleted_objectIDs"
        public static let refreshedObjectIDs = "refreshed_objectIDs"
        public static let invalidatedObjectIDs = "invalidated_objectIDs"
    }
}
