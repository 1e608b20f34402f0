import Foundation
import Synchronization

/// Merging other contexts' saves, automatic merges, and IDs that became permanent.
extension ManagedObjectContext {
    /// The registered object for `id`, also when the object still carries the temporary ID that
    /// `id` replaced at a root save elsewhere in the tree (it then adopts the permanent ID), or
    /// when `id` is such a temporary ID.
    func findRegistered(_ id: ManagedObjectID) -> ManagedObject? {
        if let object = state.registry.object(for: id) { return object }
        guard let aliases = persistentStoreCoordinator?.temporaryIDAliases, aliases.hasEntries else { return nil }
        if id.isTemporaryID {
            if let permanent = aliases.permanent(for: id) { return state.registry.object(for: permanent) }
            return nil
        }
        guard let temporary = aliases.temporary(for: id), let object = state.registry.object(for: temporary) else { return nil }
        adoptPermanentIDs([temporary: id])
        return object
    }

    // MARK: Merging

    /// Brings the context up to date with another context's save: registered objects the save
    /// updated are refreshed (unsaved edits here are kept, and win or lose per property as the
    /// merge policy says), deleted ones are removed, inserted ones become reachable; an
    /// objects-did-change notification reports it all. Pass the `.managedObjectContextDidSave`
    /// notification. Call on this context's queue.
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
        merge(
            ContextChanges(
                name: .managedObjectContextDidSave, inserted: ids(NotificationKey.insertedObjectIDs),
                updated: ids(NotificationKey.updatedObjectIDs), deleted: ids(NotificationKey.deletedObjectIDs)))
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
        var keepAlive: [ManagedObject] = []
        for id in changes.deleted {
            guard let object = findRegistered(id) else { continue }
            keepAlive.append(object)
            state.updated.remove(object)
            state.deleted.remove(object)
            state.inserted.remove(object)
            noteEvent(.deleted, for: object)
            detach(object)
        }
        let policy = mergePolicy
        for id in changes.updated {
            guard let object = findRegistered(id) else { continue }
            keepAlive.append(object)
            switch object.change {
            case .none:
                if object.isFaultStorage {
                    object.snapshot = nil  // fire from the new values
                } else {
                    refresh(object, mergeChanges: false)
                    noteEvent(.updated, for: object)
                }
            case .updated:
                mergeUnsavedObject(object, storeWins: policy.kind == .mergeByPropertyStoreTrump || policy.kind == .rollback)
                noteEvent(.updated, for: object)
            case .deleted, .inserted:
                break
            }
        }
        for id in changes.inserted {
            let object = registeredOrFault(id)
            keepAlive.append(object)
            noteEvent(.inserted, for: object)
        }
        processPendingChanges()
        withExtendedLifetime(keepAlive) {}
    }

    /// Refreshes an object that has unsaved changes with the parent store's new values: the
    /// object's changed properties keep its values unless `storeWins`, then the store's values
    /// win for properties both changed.
    private func mergeUnsavedObject(_ object: ManagedObject, storeWins: Bool) {
        guard let fresh = try? requireParentStore().snapshots(for: [object.objectID], options: ReadOptions(maxAge: -1)).first else { return }
        let old = object.snapshot
        let layout = object.entity.layout
        var attributes = fresh.attributes
        var toOne = fresh.toOne
        var changed = ChangeMask()
        for index in object.changedMask.indexes {
            guard let property = layout.property(atChangeIndex: index), let slot = layout.slots[property.name] else { continue }
            switch slot {
            case .attribute(let i) where i < attributes.count && i < object.attributeValues.count:
                let storeChanged = old.map { i < $0.attributes.count && !$0.attributes[i].isIdentical(to: fresh.attributes[i]) } ?? false
                if storeWins && storeChanged { continue }
                attributes[i] = object.attributeValues[i]
                changed.insert(index)
            case .toOne(let i) where i < toOne.count && i < object.toOneValues.count:
                let storeChanged = old.map { i < $0.toOne.count && $0.toOne[i] != fresh.toOne[i] } ?? false
                if storeWins && storeChanged { continue }
                toOne[i] = object.toOneValues[i]
                changed.insert(index)
            default:
                changed.insert(index)
            }
        }
        object.snapshot = fresh
        object.attributeValues = attributes
        object.toOneValues = toOne
        object.changedMask = changed
        if changed.isEmpty {
            state.updated.remove(object)
            object.change = .none
        }
        object.awakeFromSnapshotEvents()
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
                coordinator.temporaryIDAliases.record(state.lastPermanentIDs)
            }
            state.lastPermanentIDs = [:]
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

/// Weak references to contexts, for automatic merges. Thread-safe.
final class ContextList: Sendable {
    private final class WeakContext: @unchecked Sendable {
        // @unchecked Sendable: a weak reference to a Sendable class, set once.
        weak var context: ManagedObjectContext?
        init(_ context: ManagedObjectContext) { self.context = context }
    }

    private let entries = Mutex<[WeakContext]>([])

    func add(_ context: ManagedObjectContext) {
        entries.withLock { list in
            list.removeAll { $0.context == nil || $0.context === context }
            list.append(WeakContext(context))
        }
    }

    func remove(_ context: ManagedObjectContext) {
        entries.withLock { $0.removeAll { $0.context == nil || $0.context === context } }
    }

    var contexts: [ManagedObjectContext] { entries.withLock { $0.compactMap(\.context) } }
    var isEmpty: Bool { contexts.isEmpty }
}

/// Temporary IDs that root saves replaced with permanent ones, kept so that contexts lower in
/// the tree (which still hold objects under their temporary IDs) resolve both. Recorded only
/// when the saving context has children. Thread-safe.
final class TemporaryIDAliases: Sendable {
    private struct Table {
        var permanentByTemporary: [ManagedObjectID: ManagedObjectID] = [:]
        var temporaryByPermanent: [ManagedObjectID: ManagedObjectID] = [:]
    }

    private let table = Mutex(Table())
    private let count = Atomic<Int>(0)

    var hasEntries: Bool { count.load(ordering: .relaxed) > 0 }

    func record(_ mapping: [ManagedObjectID: ManagedObjectID]) {
        guard !mapping.isEmpty else { return }
        table.withLock { table in
            for (temporary, permanent) in mapping {
                table.permanentByTemporary[temporary] = permanent
                table.temporaryByPermanent[permanent] = temporary
            }
            count.store(table.permanentByTemporary.count, ordering: .relaxed)
        }
    }

    func permanent(for temporary: ManagedObjectID) -> ManagedObjectID? {
        table.withLock { $0.permanentByTemporary[temporary] }
    }

    func temporary(for permanent: ManagedObjectID) -> ManagedObjectID? {
        table.withLock { $0.temporaryByPermanent[permanent] }
    }
}
