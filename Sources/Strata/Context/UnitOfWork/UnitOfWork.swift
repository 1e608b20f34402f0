/// The bookkeeping of one context's unsaved changes: which objects are inserted, updated and
/// deleted, the change set a save writes, and the state a successful save leaves behind.
///
/// **The only writer.** An object's ``ManagedObject/change`` and the ``inserted``, ``updated``
/// and ``deleted`` sets are written here and nowhere else (in this file: the sets' setters are
/// private). The context asks for a change (`insert`, `recordValueChange`, `delete`,
/// `undelete`, `markClean`, `forget`, …) and the unit of work keeps the two in agreement.
///
/// **Invariants** (checked with `assert` in debug builds, so every test run checks them: the
/// object touched after each change, the whole unit of work at save, rollback and reset; see
/// `UnitOfWork+Invariants.swift`):
/// - `o ∈ inserted ⇔ o.change == .inserted`, `o ∈ updated ⇔ o.change == .updated`,
///   `o ∈ deleted ⇒ o.change == .deleted`. A deleted object outside `deleted` is a deletion with
///   nothing to write: it was inserted and never saved, or its row vanished from the store.
/// - The sets are disjoint (follows from the above) and retain their objects, so a changed
///   object lives until it is saved or rolled back.
/// - Every object in a set is registered in the context's ``ObjectRegistry`` under its current
///   ID, and every registered object is registered under its own ID: one object per ID.
///
/// **The change hook.** Every change of an object's change state or values that the context
/// makes passes through one point, `didChange`, which tells the ``UnitOfWorkObserver``s (an undo
/// manager or a history writer can subscribe). With no observer it costs one branch. Value
/// writes also announce themselves before they happen (`willChange(_:at:)`, reached only while
/// an observer is subscribed), so an undo manager can keep the old value.
///
/// **Queue.** Used only on its context's queue, like the context's other state.
final class UnitOfWork {
    /// The context's identity map (shared with the context, which registers and unregisters
    /// objects); the unit of work reads it to check its invariants and rekeys saved objects.
    let registry: ObjectRegistry
    /// Objects inserted and not yet saved, in insertion order (a save writes rows in this order).
    private(set) var inserted = ChangedObjectSet()
    /// Objects with unsaved changes to their values.
    private(set) var updated = ChangedObjectSet()
    /// Objects deleted whose rows a save must delete.
    private(set) var deleted = ChangedObjectSet()
    /// Who hears of each change (usually nobody).
    private var observers: [any UnitOfWorkObserver] = []

    init(registry: ObjectRegistry) {
        self.registry = registry
    }

    /// Whether there is anything to save. O(1).
    var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }

    // MARK: Observers

    /// Subscribes `observer` to every change recorded from now on (held strongly until removed).
    func addObserver(_ observer: any UnitOfWorkObserver) {
        observers.append(observer)
        registry.reportsEveryValueChange = true
    }

    /// Unsubscribes `observer`.
    func removeObserver(_ observer: any UnitOfWorkObserver) {
        observers.removeAll { $0 === observer }
        registry.reportsEveryValueChange = !observers.isEmpty
    }

    /// The one hook point: every change of an object's change state or values ends here.
    @inline(__always)
    private func didChange(_ object: ManagedObject, _ kind: UnitOfWorkChange.Kind, from previous: ObjectChange) {
        assert(checkConsistency(of: object))
        if !observers.isEmpty { report(UnitOfWorkChange(kind: kind, object: object, previous: previous)) }
    }

    private func report(_ change: UnitOfWorkChange) {
        for observer in observers { observer.unitOfWork(self, didRecord: change) }
    }

    /// The property in `slot` of `object` is about to change (a setter, a relationship edit or
    /// inverse maintenance; its value is still the old one): observers that keep old values
    /// (an undo manager) read it now. Objects call it only while an observer is subscribed
    /// (``ObjectRegistry/reportsEveryValueChange``), so it costs nothing otherwise.
    func willChange(_ object: ManagedObject, at slot: PropertySlot) {
        for observer in observers { observer.unitOfWork(self, willChange: object, at: slot) }
    }

    // MARK: Transitions

    /// Removes `object` from the set its change state `previous` puts it in.
    @inline(__always)
    private func leave(_ object: ManagedObject, _ previous: ObjectChange) {
        switch previous {
        case .none: break
        case .inserted: inserted.remove(object)
        case .updated: updated.remove(object)
        case .deleted: deleted.remove(object)
        }
    }

    /// `object` becomes inserted: a new object, an object a child context's save inserts here,
    /// or (`kind: .merged`) an object whose row the store lost while a trumping policy keeps it.
    @inline(__always)
    func insert(_ object: ManagedObject, because kind: UnitOfWorkChange.Kind = .inserted) {
        let previous = object.change
        if previous != .none { leave(object, previous) }
        object.change = .inserted
        inserted.insert(object)
        didChange(object, kind, from: previous)
    }

    /// A value of `object` changed (a setter, a relationship edit, inverse maintenance, a child's
    /// save): an unchanged object becomes updated; inserted and deleted ones stay as they are.
    /// Returns whether the object is now updated (the change is then an update to report).
    @inline(__always)
    func recordValueChange(_ object: ManagedObject) -> Bool {
        let previous = object.change
        if previous == .none {
            object.change = .updated
            updated.insert(object)
        }
        didChange(object, .updated, from: previous)
        return object.change == .updated
    }

    /// `object` is deleted. An object inserted and never saved has no row: it leaves `inserted`
    /// and is not added to `deleted` (nothing to write).
    func delete(_ object: ManagedObject) {
        let previous = object.change
        leave(object, previous)
        object.change = .deleted
        if previous != .inserted { deleted.insert(object) }
        didChange(object, .deleted, from: previous)
    }

    /// A fault's row is gone from the store: the object becomes deleted, with nothing left to
    /// delete in the store (it is not added to `deleted`).
    func rowVanished(_ object: ManagedObject) {
        let previous = object.change
        leave(object, previous)
        object.change = .deleted
        didChange(object, .vanished, from: previous)
    }

    /// Undoes a delete (the object is inserted again): an object without a saved row becomes
    /// inserted, one with changed values updated, any other unchanged.
    func undelete(_ object: ManagedObject) {
        let previous = object.change
        leave(object, previous)
        if object.snapshot == nil {
            object.change = .inserted
            inserted.insert(object)
        } else if object.changedMask.isEmpty {
            object.change = .none
        } else {
            object.change = .updated
            updated.insert(object)
        }
        didChange(object, .undeleted, from: previous)
    }

    /// `object` no longer has unsaved changes, for the reason `kind`: refreshed, rolled back, or
    /// merged (a merge or conflict resolution left nothing of its changes, or the store's newer
    /// row won over its delete).
    func markClean(_ object: ManagedObject, because kind: UnitOfWorkChange.Kind) {
        let previous = object.change
        leave(object, previous)
        object.change = .none
        dropPendingEdits(of: object)
        didChange(object, kind, from: previous)
    }

    /// `object` becomes updated for the reason `kind` (an inserted object merged into an
    /// existing row whose values it changes).
    func markUpdated(_ object: ManagedObject, because kind: UnitOfWorkChange.Kind) {
        let previous = object.change
        leave(object, previous)
        object.change = .updated
        updated.insert(object)
        didChange(object, kind, from: previous)
    }

    /// `object` leaves the unit of work: the context is detaching it (reset, rollback of an
    /// insert, a delete merged from elsewhere, a conflict resolved by dropping it).
    func forget(_ object: ManagedObject) {
        markClean(object, because: .forgotten)
    }

    /// `object`'s values changed without a change of its state (`kind`: merged or refreshed
    /// values, values a rollback restored to an object that was not tracked).
    @inline(__always)
    func recordValues(_ object: ManagedObject, because kind: UnitOfWorkChange.Kind) {
        didChange(object, kind, from: object.change)
    }

    /// Drops the to-many edits an unchanged object still records (see `ToManyDelta`): they
    /// were saved or undone, and must not come back if the object changes again.
    @inline(__always)
    private func dropPendingEdits(of object: ManagedObject) {
        if !object.pendingToMany.isEmpty { object.pendingToMany = [:] }
    }

    // MARK: After a save

    /// Ends the unit of work after the parent store accepted a save of `saved` (the objects of
    /// `inserted`, `updated` and `deleted` when the change set was made): every saved object
    /// becomes unchanged (its change mask cleared); deleted objects leave the context (`unlink`
    /// unregisters each, then its snapshot is dropped). The sets are emptied — objects inserted
    /// and deleted before this save never reached them. Observers hear of each object after the
    /// unit of work is consistent again. O(saved objects), no allocation per object.
    func closeSaved(_ saved: SavedObjects, unlink: (ManagedObject) -> Void) {
        for object in saved.inserted {
            object.change = .none
            object.changedMask.removeAll()
            dropPendingEdits(of: object)
        }
        for object in saved.updated {
            object.change = .none
            object.changedMask.removeAll()
            dropPendingEdits(of: object)
        }
        for object in saved.deleted {
            object.change = .none
            unlink(object)
            object.snapshot = nil
        }
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        assert(checkConsistency())
        guard !observers.isEmpty else { return }
        for object in saved.inserted { report(UnitOfWorkChange(kind: .saved, object: object, previous: .inserted)) }
        for object in saved.updated { report(UnitOfWorkChange(kind: .saved, object: object, previous: .updated)) }
        for object in saved.deleted { report(UnitOfWorkChange(kind: .saved, object: object, previous: .deleted)) }
    }
}

/// The objects one save writes, as the unit of work held them when it made the change set.
/// Used on the context's queue.
struct SavedObjects {
    var inserted: [ManagedObject]
    var updated: [ManagedObject]
    var deleted: [ManagedObject]
}
