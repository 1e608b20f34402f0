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
        try StrataTrace.span(
            parent == nil ? "save" : "save into parent", .save,
            outcome: { changes, arguments in
                guard let changes else { return arguments.append(.number("changes", 0)) }
                arguments.append(.number("inserted", changes.inserted.count))
                arguments.append(.number("updated", changes.updated.count))
                arguments.append(.number("deleted", changes.deleted.count))
            },
            body: { try saveChanges() })
    }

    /// `save()`'s work; returns what the did-save notification reported (`nil`: nothing to save).
    private func saveChanges() throws -> ContextChanges? {
        if state.isSaving {
            throw StrataError(code: StrataError.Code.coreData, message: "save() was called while the context was already saving (from willSave or a notification observer)")
        }
        processPendingChanges(recordingSaveSets: true)
        defer { state.postedSaveSets = nil }
        guard hasChanges || !state.problemObjects.isEmpty || !state.contextProblems.isEmpty else { return nil }
        state.isSaving = true
        defer { state.isSaving = false }
        post(ContextChanges(name: .managedObjectContextWillSave), userInfo: [:])
        let saving = try runWillSave()
        let savingStamp = state.work.changeStamp
        try loadPendingRelationshipEdits()
        processPendingChanges()
        if !state.skipsSaveValidation { try validateForSave(saving) }
        let parent = try requireParentStore()
        assert(state.work.checkConsistency())
        // Only the result is kept: the change set goes before the saved objects take their new
        // snapshots, so that their values' drafts can become them (`UnitOfWork.commitValues`).
        let result = try saveResolvingConflicts(to: parent).result
        return finishSave(result: result, pending: (saving, savingStamp))
    }

    /// Calls `willSave()` on each changed object; objects changed by those calls get another
    /// pass, up to `maximumWillSavePasses`.
    private func runWillSave() throws -> SavedObjects {
        // The first pass calls every changed object, walking the sets in place. Most saves end
        // there: no set changed and no object changed during the pass, which the sets' counts
        // of mutations (the unit of work's stamp) and one walk tell without recording who was
        // called.
        let first = (state.work.inserted, state.work.updated, state.work.deleted)
        let stamp = state.work.changeStamp
        for set in [first.0, first.1, first.2] {
            for object in set { object.changedSinceWillSave = false }
        }
        for set in [first.0, first.1, first.2] {
            for object in set { object.willSave() }
        }
        if stamp == state.work.changeStamp && !hasObjectChangedSinceWillSave() { return state.work.pendingObjects }
        // Otherwise the general rule: an object changed during a pass (by its own willSave or
        // another's) gets one more call, and so does one that became changed during it.
        var called = Set<ObjectIdentifier>()
        for set in [first.0, first.1, first.2] {
            for object in set { called.insert(ObjectIdentifier(object)) }
        }
        var passes = 1
        while true {
            for set in [state.work.inserted, state.work.updated, state.work.deleted] {
                for object in set where object.changedSinceWillSave {
                    object.changedSinceWillSave = false
                    called.remove(ObjectIdentifier(object))
                }
            }
            let pending = (state.work.inserted.objects + state.work.updated.objects + state.work.deleted.objects).filter { !called.contains(ObjectIdentifier($0)) }
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
        }
        return state.work.pendingObjects
    }

    /// Whether any changed object changed since its last `willSave()` call.
    private func hasObjectChangedSinceWillSave() -> Bool {
        for set in [state.work.inserted, state.work.updated, state.work.deleted] {
            for object in set where object.changedSinceWillSave { return true }
        }
        return false
    }

    /// Validates every changed object and reports recorded problems; throws them all at once.
    private func validateForSave(_ saving: SavedObjects) throws {
        var errors: [StrataError] = state.contextProblems
        for object in state.problemObjects.objects where object.change != .deleted || state.work.deleted.contains(object) {
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
        Prefetch.forEach(saving.inserted) { object in collect { try object.validateForInsert() } }
        Prefetch.forEach(saving.updated) { object in collect { try object.validateForUpdate() } }
        Prefetch.forEach(saving.deleted) { object in collect { try object.validateForDelete() } }
        if let error = StrataError.combining(errors) { throw error }
    }

    /// Applies a successful save: the unit of work commits the saved state (permanent IDs, new
    /// base snapshots, cleared changes, deleted objects gone); then the coordinator's row cache,
    /// `didSave()` and the did-save notifications (whose changes it returns). `pending` is the
    /// list of objects the save validated, with the unit of work's stamp when it was taken: it
    /// is reused when no object joined or left the sets since.
    @discardableResult
    func finishSave(result: StoreSaveResult, pending: (objects: SavedObjects, stamp: UnitOfWork.ChangeStamp)) -> ContextChanges {
        state.lastPermanentIDs = result
        let isRoot = parent == nil
        // The sets the save's objects-did-change reported, if the unit of work's sets are still
        // those (they are what `applySave` saves).
        let posted = state.postedSaveSets.flatMap { $0.stamp == state.work.changeStamp ? $0 : nil }
        state.postedSaveSets = nil
        let saved = state.work.applySave(result, versionIncrement: isRoot ? 1 : 0, pending: pending, unlink: unlink)
        if isRoot, let coordinator = persistentStoreCoordinator {
            coordinator.didSave(rowCount: saved.inserted.count + saved.updated.count) {
                saved.inserted.compactMap(\.snapshot) + saved.updated.compactMap(\.snapshot)
            }
            advancePinnedGenerationAfterSave()
        }
        clearProblems()
        for objects in [saved.inserted, saved.updated, saved.deleted] {
            Prefetch.forEach(objects) { object in
                object.eventChanges = []
                object.didSave()
            }
        }
        state.eventObjects.removeAll { $0.eventChanges.isEmpty }
        let postedInserted = posted?.inserted.flatMap { $0.count == saved.inserted.count ? $0 : nil }
        let postedUpdated = posted?.updated.flatMap { $0.count == saved.updated.count ? $0 : nil }
        let postedUpdatedIDs = postedUpdated == nil ? nil : posted?.updatedIDs
        var changes = ContextChanges(
            name: .managedObjectContextDidSave, inserted: Self.objectIDs(of: saved.inserted),
            updated: postedUpdatedIDs ?? Self.objectIDs(of: saved.updated), deleted: Self.objectIDs(of: saved.deleted))
        changes.traceOrigin = StrataTrace.flowOrigin()
        post(
            changes,
            userInfo: [
                ManagedObjectContext.NotificationKey.insertedObjects: postedInserted ?? Set(saved.inserted),
                ManagedObjectContext.NotificationKey.updatedObjects: postedUpdated ?? Set(saved.updated),
                ManagedObjectContext.NotificationKey.deletedObjects: Set(saved.deleted),
            ])
        post(ContextChanges(name: .managedObjectContextDidSaveObjectIDs, inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted), userInfo: [:])
        didSaveChanges(changes)
        return changes
    }

    /// The IDs of `objects` as a set, sized once and filled without an intermediate array.
    static func objectIDs(of objects: [ManagedObject]) -> Set<ManagedObjectID> {
        var ids = Set<ManagedObjectID>(minimumCapacity: objects.count)
        Prefetch.forEach(objects) { ids.insert($0.objectID) }
        return ids
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
    ///
    /// Constants: use them on any thread. The values under them are read on the posting context's
    /// queue (objects) or any thread (ID sets).
    public enum NotificationKey {
        /// The inserted objects, a `Set<ManagedObject>` (Core Data's `NSInsertedObjectsKey`). Read
        /// them on the posting context's queue.
        public static let insertedObjects = "inserted"
        /// The updated objects, a `Set<ManagedObject>` (Core Data's `NSUpdatedObjectsKey`). Read
        /// them on the posting context's queue.
        public static let updatedObjects = "updated"
        /// The deleted objects, a `Set<ManagedObject>` (Core Data's `NSDeletedObjectsKey`). Read
        /// them on the posting context's queue.
        public static let deletedObjects = "deleted"
        /// The refreshed objects, a `Set<ManagedObject>`, in objects-did-change notifications only
        /// (Core Data's `NSRefreshedObjectsKey`). Read them on the posting context's queue.
        public static let refreshedObjects = "refreshed"
        /// The objects whose rows are gone, a `Set<ManagedObject>`, in objects-did-change
        /// notifications only (Core Data's `NSInvalidatedObjectsKey`). Read them on the posting
        /// context's queue.
        public static let invalidatedObjects = "invalidated"
        /// Present after ``ManagedObjectContext/reset()``: the IDs of every object the context had
        /// registered, a `Set<ManagedObjectID>` (Core Data's `NSInvalidatedAllObjectsKey`).
        /// Sendable: read it on any queue.
        public static let invalidatedAllObjects = "invalidatedAll"
        /// The IDs of the inserted objects, a `Set<ManagedObjectID>`, in every context notification
        /// (Core Data's `NSInsertedObjectIDsKey`). Sendable: read it on any queue.
        public static let insertedObjectIDs = "inserted_objectIDs"
        /// The IDs of the updated objects, a `Set<ManagedObjectID>`, in every context notification
        /// (Core Data's `NSUpdatedObjectIDsKey`). Sendable: read it on any queue.
        public static let updatedObjectIDs = "updated_objectIDs"
        /// The IDs of the deleted objects, a `Set<ManagedObjectID>`, in every context notification
        /// (Core Data's `NSDeletedObjectIDsKey`). Sendable: read it on any queue.
        public static let deletedObjectIDs = "deleted_objectIDs"
        /// The IDs of the refreshed objects, a `Set<ManagedObjectID>`, when there are any (Core
        /// Data's `NSRefreshedObjectIDsKey`). Sendable: read it on any queue.
        public static let refreshedObjectIDs = "refreshed_objectIDs"
        /// The IDs of the invalidated objects, a `Set<ManagedObjectID>`, when there are any (Core
        /// Data's `NSInvalidatedObjectIDsKey`). Sendable: read it on any queue.
        public static let invalidatedObjectIDs = "invalidated_objectIDs"
    }
}
