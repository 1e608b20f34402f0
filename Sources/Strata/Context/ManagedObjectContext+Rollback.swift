import Foundation

/// Discarding changes, forgetting objects, and turning objects back into faults.
extension ManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// ones get their last saved values back. The next objects-did-change tells observers what
    /// the rollback undid, as far as they were told of it: an insert already reported comes back
    /// as a deletion, a deletion already reported as an insertion, and objects whose values go
    /// back as updates; changes made and undone within the current event are not reported at
    /// all. The ``undoManager`` loses all its actions, as in Core Data. Call on the context's
    /// queue.
    public func rollback() {
        checkAccess("rollback()")
        state.undoManager?.removeAllActions()
        for object in state.work.inserted.objects {
            let insertReported = !object.eventChanges.contains(.inserted)
            forgetEvent(of: object)
            detach(object)
            if insertReported { noteEvent(.deleted, for: object) }
        }
        for object in state.work.updated.objects {
            forgetEvent(of: object)
            revert(object)
            noteEvent(.updated, for: object)
        }
        for object in state.work.deleted.objects {
            let deleteReported = !object.eventChanges.contains(.deleted)
            forgetEvent(of: object)
            revert(object)
            noteEvent(deleteReported ? .inserted : .updated, for: object)
        }
        // Objects deleted after being inserted, or whose rows vanished, are no longer tracked;
        // they leave the context (observers were told of their deletion, or of nothing).
        for object in state.registry.allObjects where object.change == .deleted {
            forgetEvent(of: object)
            revert(object)
        }
        clearProblems()
        assert(!state.work.hasChanges && state.work.checkConsistency())
    }

    /// Drops what the current event noted for `object` (the change is being undone). The object
    /// may stay in the event's list; with nothing noted it reports nothing.
    private func forgetEvent(of object: ManagedObject) {
        object.eventChanges = []
    }

    /// Restores an object's last saved values.
    private func revert(_ object: ManagedObject) {
        guard let snapshot = object.snapshot else {
            if object.isFaultStorage && object.change != .inserted {
                // A fault changed through its relationships only: it becomes a plain fault again.
                state.work.markClean(object, because: .rolledBack)
                prepareStorage(of: object, defaults: false)
                object.recordedProblems.removeAll()
                return
            }
            detach(object)
            return
        }
        object.attributeValues = snapshot.attributes
        object.toOneValues = snapshot.toOne
        object.toManyLists = nil
        object.transientValues = object.entity.layout.transientDefaults
        object.changedMask.removeAll()
        object.recordedProblems.removeAll()
        state.work.markClean(object, because: .rolledBack)
    }

    /// Removes an object from the context; it keeps its values but is no longer managed.
    func detach(_ object: ManagedObject) {
        state.work.forget(object)
        unlink(object)
    }

    /// Unregisters an object and cuts its link to the context (its change state is the unit of
    /// work's business: `detach` or a save's end takes care of it).
    func unlink(_ object: ManagedObject) {
        object.forgetPrefetchedObjects()
        state.registry.unregister(object.objectID, ifItIs: object)
        state.retained[ObjectIdentifier(object)] = nil
        object.registry = nil
    }

    func clearProblems() {
        for object in state.problemObjects.objects { object.recordedProblems.removeAll() }
        state.problemObjects.removeAll()
        state.contextProblems.removeAll()
    }

    /// Forgets every object and every unsaved change. Objects the app still holds are detached
    /// (no longer managed). Observers hear of it at once: an objects-did-change whose
    /// `invalidatedAllObjects` key (``ContextChanges/invalidatedAll``) holds the IDs of the
    /// objects that were registered, as Core Data posts `NSInvalidatedAllObjectsKey`; changes of
    /// the current event not yet reported are dropped. The ``undoManager`` loses all its
    /// actions. Call on the context's queue.
    public func reset() {
        checkAccess("reset()")
        forgetAllObjects()
        // The objects are gone now (unless the app holds them): the rows they used that wait
        // in the coordinator's row cache are let go too, so a reset gives the memory back.
        persistentStoreCoordinator?.rowCache.settleWaitingRows()
    }

    /// The body of ``reset()``: every object detached and forgotten, observers told. The
    /// objects are released when it returns.
    private func forgetAllObjects() {
        state.undoManager?.removeAllActions()
        let registered = state.registry.allObjects
        let registeredIDs = Set(registered.map(\.objectID))
        for object in state.eventObjects { object.eventChanges = [] }
        state.eventObjects.removeAll()
        state.mergedInsertions = []
        for object in registered { detach(object) }
        for object in state.work.inserted.objects + state.work.updated.objects + state.work.deleted.objects { detach(object) }
        state.registry.removeAll()
        state.retained.removeAll()
        clearProblems()
        assert(!state.work.hasChanges && state.work.checkConsistency())
        if !registeredIDs.isEmpty {
            post(ContextChanges(name: .managedObjectContextObjectsDidChange, invalidated: registeredIDs, invalidatedAll: true), userInfo: [:])
        }
    }

    /// Turns `object` back into a fault. With `mergeChanges` false, its unsaved changes and
    /// transient values are discarded; with true, they are kept (changes re-applied over fresh
    /// values when it fires again). Inserted objects are left alone. Call on the context's
    /// queue.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkAccess("refresh(_:mergeChanges:)")
        guard object.link === self, object.change != .inserted, object.change != .deleted else { return }
        if mergeChanges && object.change == .updated {
            refreshKeepingChanges(object)
            return
        }
        if mergeChanges && !object.isFaultStorage {
            refreshKeepingTransients(object)
            return
        }
        object.willTurnIntoFault()
        noteEvent(.refreshed, for: object)
        state.work.markClean(object, because: .refreshed)
        object.snapshot = nil
        object.forgetPrefetchedObjects()
        prepareStorage(of: object, defaults: false)
        object.isFaultStorage = true
        object.recordedProblems.removeAll()
        state.problemObjects.remove(object)
        object.didTurnIntoFault()
    }

    /// Turns an unchanged object into a fault that fires with fresh values, keeping its
    /// transient attributes and relationships: Core Data's `refresh(_:mergeChanges: true)`
    /// (also how a merge refreshes) keeps them; `mergeChanges: false` resets them.
    func refreshKeepingTransients(_ object: ManagedObject) {
        let layout = object.entity.layout
        let keepsTransients = !layout.transientAttributes.isEmpty || layout.hasTransientRelationships
        let transients = object.transientValues
        let toOnes = object.toOneValues
        let toManys = object.toManyValues
        let committed = object.committedToMany
        refresh(object, mergeChanges: false)
        guard keepsTransients else { return }
        if transients.count == layout.transientAttributes.count { object.transientValues = transients }
        for slot in layout.transientToOneSlots where slot < toOnes.count && slot < object.toOneValues.count {
            object.toOneValues[slot] = toOnes[slot]
        }
        for slot in layout.transientToManySlots where slot < toManys.count && slot < object.toManyValues.count {
            object.toManyValues[slot] = toManys[slot]
            if slot < committed.count && slot < object.committedToMany.count { object.committedToMany[slot] = committed[slot] }
        }
    }

    /// Reloads an updated object's values from its parent store and re-applies its changes over
    /// them (the unit of work's three-way merge with the object winning every property: Core
    /// Data's `refresh(_:mergeChanges: true)` never conflicts).
    private func refreshKeepingChanges(_ object: ManagedObject) {
        guard let fresh = try? requireParentStore().snapshots(for: [object.objectID], options: .default).first else { return }
        state.work.mergeUnsavedChanges(of: object, with: fresh, winner: .object)
        state.work.recordValues(object, because: .refreshed)
        object.awakeFromSnapshotEvents()
    }

    /// Turns every unchanged registered object back into a fault (changed ones keep their
    /// changes). Call on the context's queue.
    public func refreshAllObjects() {
        checkAccess("refreshAllObjects()")
        for object in state.registry.allObjects where object.change == .none && !object.isFaultStorage {
            refresh(object, mergeChanges: false)
        }
        for object in state.work.updated.objects {
            refresh(object, mergeChanges: true)
        }
    }
}
