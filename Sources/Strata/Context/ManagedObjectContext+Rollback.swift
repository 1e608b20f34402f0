import Foundation

/// Discarding changes, forgetting objects, and turning objects back into faults.
extension ManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave the context, updated and deleted
    /// ones get their last saved values back. Call on the context's queue.
    public func rollback() {
        checkAccess("rollback()")
        // Changes rolled back are not reported as changes of this event.
        for object in state.eventObjects { object.eventChanges = [] }
        state.eventObjects.removeAll()
        for object in state.work.inserted.objects { detach(object) }
        for object in state.work.updated.objects + state.work.deleted.objects {
            revert(object)
        }
        // Objects deleted after being inserted are no longer tracked; detach them too.
        for object in state.registry.allObjects where object.change == .deleted { revert(object) }
        clearProblems()
        assert(!state.work.hasChanges && state.work.checkConsistency())
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
        object.toManyValues = Array(repeating: nil, count: object.entity.layout.toManyRelationships.count)
        object.committedToMany = object.toManyValues
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
        object.prefetchedObjects = []
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
    /// (no longer managed). Call on the context's queue.
    public func reset() {
        checkAccess("reset()")
        for object in state.registry.allObjects { detach(object) }
        for object in state.work.inserted.objects + state.work.updated.objects + state.work.deleted.objects { detach(object) }
        state.registry.removeAll()
        state.retained.removeAll()
        clearProblems()
        assert(!state.work.hasChanges && state.work.checkConsistency())
    }

    /// Turns `object` back into a fault. With `mergeChanges` false, its unsaved changes are
    /// discarded; with true, they are kept and re-applied over fresh values when it fires again.
    /// Inserted objects are left alone. Call on the context's queue.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkAccess("refresh(_:mergeChanges:)")
        guard object.link === self, object.change != .inserted, object.change != .deleted else { return }
        if mergeChanges && object.change == .updated {
            refreshKeepingChanges(object)
            return
        }
        object.willTurnIntoFault()
        noteEvent(.refreshed, for: object)
        state.work.markClean(object, because: .refreshed)
        object.snapshot = nil
        object.prefetchedObjects = []
        prepareStorage(of: object, defaults: false)
        object.isFaultStorage = true
        object.recordedProblems.removeAll()
        state.problemObjects.remove(object)
        object.didTurnIntoFault()
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
