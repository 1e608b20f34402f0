import Foundation
import Synchronization

/// Merging other contexts' saves, automatic merges, and IDs that became permanent.
extension ManagedObjectContext {
    /// The registered object for `id`, also when the object still carries the temporary ID that
    /// `id` replaced at a root save elsewhere in the tree (it then adopts the permanent ID), or
    /// when `id` is such a temporary ID.
    @inline(__always) func findRegistered(_ id: ManagedObjectID) -> ManagedObject? {
        // The registry is borrowed for the look-up (the context's state holds it), not retained
        // and released once more per call: every fetched row and fault comes through here.
        if let object = Unmanaged.passUnretained(state.registry)._withUnsafeGuaranteedRef({ $0.object(for: id) }) { return object }
        return findRegisteredByAlias(id)
    }

    /// `findRegistered(_:)` for an ID with no object registered under it: the object under the
    /// temporary ID it replaced, or under the permanent ID that replaced it.
    private func findRegisteredByAlias(_ id: ManagedObjectID) -> ManagedObject? {
        guard TemporaryIDAliases.anyRecorded, let aliases = persistentStoreCoordinator?.temporaryIDAliases, aliases.hasEntries else { return nil }
        if id.isTemporaryID {
            if let permanent = aliases.permanent(for: id) { return state.registry.object(for: permanent) }
            return nil
        }
        guard let temporary = aliases.temporary(for: id), let object = state.registry.object(for: temporary) else { return nil }
        adoptPermanentIDs([temporary: id])
        return object
    }

    // MARK: Merging

    /// Brings the context up to date with another context's save, as Core Data does: registered
    /// objects the save updated are refreshed (unsaved edits here are kept, and win or lose per
    /// property as the merge policy says; a fault forgets the values and to-manys it had
    /// loaded); registered objects the save deleted stay registered with their last values and
    /// become deleted (`isDeleted`; there is nothing left to delete, so they are not in
    /// `deletedObjects`); inserted ones are registered (as faults) and held until the end of the
    /// block on this context's queue that merges. An objects-did-change notification reports it
    /// all. Pass the `.managedObjectContextDidSave` notification. Call on this context's queue.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        checkAccess("mergeChanges(fromContextDidSave:)")
        let info = notification.userInfo ?? [:]
        func ids(_ key: String) -> Set<ManagedObjectID> {
            if let set = info[key] as? Set<ManagedObjectID> { return set }
            if let objectsKey = [
                NotificationKey.insertedObjectIDs: NotificationKey.insertedObjects, NotificationKey.updatedObjectIDs: NotificationKey.updatedObjects,
                NotificationKey.deletedObjectIDs: NotificationKey.deletedObjects,
            ][key],
                let objects = info[objectsKey] as? Set<ManagedObject>
            {
                return Set(objects.map(\.objectID))
            }
            return []
        }
        var changes = ContextChanges(
            name: .managedObjectContextDidSave, inserted: ids(NotificationKey.insertedObjectIDs),
            updated: ids(NotificationKey.updatedObjectIDs), deleted: ids(NotificationKey.deletedObjectIDs))
        changes.traceOrigin = info[ContextChanges.traceOriginKey] as? TraceFlowOrigin
        merge(changes)
    }

    /// Merges saved changes (IDs only) into each of `contexts`, on each context's own queue,
    /// without waiting (Core Data's `mergeChanges(fromRemoteContextSave:into:)`). Keys are
    /// `NotificationKey.insertedObjectIDs`, `updatedObjectIDs`, `deletedObjectIDs`; values are
    /// sets or arrays of `ManagedObjectID`. Callable from any thread.
    public static func mergeChanges(fromRemoteContextSave changes: [String: any Sendable], into contexts: [ManagedObjectContext]) {
        func ids(_ key: String) -> Set<ManagedObjectID> {
            if let set = changes[key] as? Set<ManagedObjectID> { return set }
            if let array = changes[key] as? [ManagedObjectID] { return Set(array) }
            return []
        }
        let payload = ContextChanges(
            name: .managedObjectContextDidSave, inserted: ids(NotificationKey.insertedObjectIDs),
            updated: ids(NotificationKey.updatedObjectIDs), deleted: ids(NotificationKey.deletedObjectIDs))
        for context in contexts {
            context.perform { context.merge(payload) }
        }
    }

    /// Applies a save's changes to the registered objects.
    func merge(_ changes: ContextChanges) {
        guard !changes.isEmpty else { return }
        StrataTrace.span(
            "merge", .merge,
            arguments: TraceArguments(.number("inserted", changes.inserted.count), .number("updated", changes.updated.count), .number("deleted", changes.deleted.count))
        ) {
            StrataTrace.flowArrives(from: changes.traceOrigin, "did-save merged")
            mergeNow(changes)
        }
    }

    private func mergeNow(_ changes: ContextChanges) {
        var keepAlive: [ManagedObject] = []
        for id in changes.deleted {
            guard let object = findRegistered(id) else { continue }
            keepAlive.append(object)
            noteEvent(.deleted, for: object)
            rowDeletedElsewhere(object)
        }
        let policy = mergePolicy
        for id in changes.updated {
            guard let object = findRegistered(id) else { continue }
            keepAlive.append(object)
            switch object.change {
            case .none:
                if object.isFaultStorage {
                    // Fire from the new values; to-manys read while a fault are read again.
                    object.snapshot = nil
                    object.faultBatch = nil
                    forgetLoadedToManys(of: object)
                    state.work.recordValues(object, because: .merged)
                    noteEvent(.refreshed, for: object)
                } else {
                    refreshKeepingTransients(object)
                }
                noteEvent(.updated, for: object)
            case .updated:
                mergeUnsavedObject(object, winner: policy.kind == .mergeByPropertyStoreTrump || policy.kind == .rollback ? .store : .object)
                noteEvent(.updated, for: object)
            case .deleted:
                // The row outlives the unsaved delete: a rollback brings the object back with
                // the row's new values, not the ones it had before the other save.
                if let fresh = try? requireParentStore().snapshots(for: [object.objectID], options: ReadOptions(maxAge: -1)).first {
                    object.snapshot = fresh
                }
            case .inserted:
                break
            }
        }
        var inserted: [ManagedObject] = []
        inserted.reserveCapacity(changes.inserted.count)
        for id in changes.inserted {
            let object = registeredOrFault(id)
            inserted.append(object)
            noteEvent(.inserted, for: object)
        }
        // Held until the block that merges ends (replacing an earlier merge's objects).
        state.mergedInsertions = inserted
        processPendingChanges()
        withExtendedLifetime(keepAlive) {}
    }

    /// An unchanged fault's to-manys read while it was a fault are dropped: they load again, as
    /// fresh as its row, on next use.
    private func forgetLoadedToManys(of object: ManagedObject) {
        guard object.toManyValues.contains(where: { $0 != nil }) else { return }
        object.toManyLists = nil
        object.forgetPrefetchedObjects()
    }

    /// A save elsewhere deleted `object`'s row. As in Core Data, the object stays registered and
    /// realised, its last values readable (a fault takes the row it was fetched with, if it has
    /// one, else nil values), and becomes deleted; fetches no longer find its row. It is not put
    /// in `deletedObjects`: there is nothing left to delete, and unsaved edits of it are dropped.
    private func rowDeletedElsewhere(_ object: ManagedObject) {
        if object.isFaultStorage {
            if let row = object.snapshot {
                object.loadValues(from: row)
            } else {
                prepareStorage(of: object, defaults: false)
                object.isFaultStorage = false
            }
        }
        object.faultBatch = nil
        object.snapshot = nil
        state.work.rowVanished(object)
    }

    /// Refreshes an object that has unsaved changes with the parent store's new values, by the
    /// unit of work's three-way merge: the object's changed properties keep its values unless the
    /// store wins and changed them too (see `UnitOfWork.mergeUnsavedChanges`); an object left
    /// with no change becomes unchanged.
    private func mergeUnsavedObject(_ object: ManagedObject, winner: UnitOfWork.MergeWinner) {
        guard let fresh = try? requireParentStore().snapshots(for: [object.objectID], options: ReadOptions(maxAge: -1)).first else { return }
        let remaining = state.work.mergeUnsavedChanges(of: object, with: fresh, winner: winner)
        rebaseToManys(of: object)
        if remaining.isEmpty {
            state.work.markClean(object, because: .merged)
        } else {
            state.work.recordValues(object, because: .merged)
        }
        object.awakeFromSnapshotEvents()
    }

    /// The to-manys of an object with unsaved changes follow a save made elsewhere: one it did
    /// not change is read again on next use; one it changed gets the store's new contents with
    /// its own additions and removals replayed on them, so the links both sides made survive
    /// (as Core Data's merge keeps the other save's relationship changes beside the unsaved
    /// ones). Without this, a registered object kept a to-many read before the other save (the
    /// inverse of a to-one that save changed), and its next save wrote it back.
    private func rebaseToManys(of object: ManagedObject) {
        let relationships = object.entity.layout.toManyRelationships
        for slot in object.toManyValues.indices where slot < relationships.count && !relationships[slot].isTransient {
            guard let current = object.toManyValues[slot], slot < object.committedToMany.count, let committed = object.committedToMany[slot] else { continue }
            if current.ids == committed.ids {
                object.toManyValues[slot] = nil
                object.committedToMany[slot] = nil
                continue
            }
            guard
                let freshIDs = try? requireParentStore().toManyIDs(of: [object.objectID], relationship: relationships[slot], options: ReadOptions(maxAge: -1))[object.objectID]
            else { continue }
            let before = Set(committed.ids)
            let now = Set(current.ids)
            let removed = before.subtracting(now)
            let freshSet = Set(freshIDs)
            var merged = freshIDs.filter { !removed.contains($0) }
            merged += current.ids.filter { !before.contains($0) && !freshSet.contains($0) }
            object.toManyValues[slot] = ToManyValue(merged)
            object.committedToMany[slot] = ToManyValue(freshIDs)
        }
    }

    // MARK: Automatic merges

    /// After a save: tells the contexts that merge automatically (Core Data's
    /// `automaticallyMergesChangesFromParent`). A root save reaches the coordinator's other root
    /// contexts; any save into or by a context reaches that context's other children. Merges run
    /// on each receiver's queue, never waited for.
    func didSaveChanges(_ changes: ContextChanges) {
        guard !changes.isEmpty else { return }
        if let parentContext = parent {
            parentContext.childDidSaveIntoSelf(changes, from: self)
        } else if let coordinator = persistentStoreCoordinator {
            if !changes.inserted.isEmpty, hasChildContexts {
                // Descendants still know these objects by their temporary IDs.
                coordinator.temporaryIDAliases.record(state.lastPermanentIDs.allPermanentIDs)
            }
            state.lastPermanentIDs = SaveChangesResult()
            for context in coordinator.rootContexts() where context !== self && context.automaticallyMergesChangesFromParent {
                context.perform { context.merge(changes) }
            }
        }
        notifyChildren(changes, except: nil)
    }

    /// A child's save landed in this context: the other children that merge automatically hear of it.
    func childDidSaveIntoSelf(_ changes: ContextChanges, from child: ManagedObjectContext) {
        notifyChildren(changes, except: child)
    }

    private func notifyChildren(_ changes: ContextChanges, except excluded: ManagedObjectContext?) {
        for child in children where child !== excluded && child.automaticallyMergesChangesFromParent {
            child.perform { child.merge(changes) }
        }
    }
}

extension ManagedObjectContext: ChangesElsewhereReceiver {
    /// Another process or server changed rows of a store of this root context's coordinator:
    /// when the context merges automatically, it merges them as another context's did-save (on
    /// its queue, not waited for), and its children that merge automatically hear of it.
    /// Called from any thread.
    func receiveChangesMadeElsewhere(inserted: Set<ManagedObjectID>, updated: Set<ManagedObjectID>, deleted: Set<ManagedObjectID>) {
        guard automaticallyMergesChangesFromParent else { return }
        let changes = ContextChanges(name: .managedObjectContextDidSave, inserted: inserted, updated: updated, deleted: deleted)
        perform {
            self.merge(changes)
            self.notifyChildren(changes, except: nil)
        }
    }
}

extension PersistentStoreCoordinator {
    /// The live root contexts using this coordinator, in the order they joined it.
    func rootContexts() -> [ManagedObjectContext] {
        rootContextList.objects.compactMap { $0 as? ManagedObjectContext }
    }
}
