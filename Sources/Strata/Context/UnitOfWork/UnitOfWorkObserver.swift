/// Something that hears of every change a context's ``UnitOfWork`` records: the subscription
/// point for an undo manager (``ObjectUndoManager`` subscribes while it is a context's
/// `undoManager`) or a history writer.
///
/// **Queue.** Called synchronously on the context's queue: `didRecord` right after the change
/// (after a save, once the whole save is applied), `willChange` right before a property value
/// is written. An observer must not change objects or the context from these calls; it may
/// read them (reading may fire a fault or load a to-many relationship).
protocol UnitOfWorkObserver: AnyObject {
    /// `change` was just recorded by `unitOfWork`.
    func unitOfWork(_ unitOfWork: UnitOfWork, didRecord change: UnitOfWorkChange)
    /// The property in `slot` of `object` is about to be written by a setter, a relationship
    /// edit or inverse maintenance (merges, refreshes, rollbacks and saves write without
    /// this call). The object still holds the old value.
    func unitOfWork(_ unitOfWork: UnitOfWork, willChange object: ManagedObject, at slot: PropertySlot)
}

extension UnitOfWorkObserver {
    /// Observers that need no old values ignore the announcement.
    func unitOfWork(_ unitOfWork: UnitOfWork, willChange object: ManagedObject, at slot: PropertySlot) {}
}

/// One change recorded by a unit of work: what happened, to which object, and the object's
/// change state before (its state after is `object.change`). Used on the context's queue.
struct UnitOfWorkChange {
    /// What happened to the object.
    enum Kind: UInt8, CaseIterable {
        /// The object became inserted (a new object, one a child's save inserted here).
        case inserted
        /// An attribute or relationship value changed (through a setter, a relationship edit,
        /// inverse maintenance or a child's save); the object is updated unless it is inserted
        /// or deleted.
        case updated
        /// The object was deleted.
        case deleted
        /// The object's row vanished from the store (found when its fault fired): it is now
        /// deleted, with nothing left to delete.
        case vanished
        /// A delete was undone by inserting the object again.
        case undeleted
        /// The object was refreshed: turned back into a fault (changes dropped), or reloaded with
        /// its changes kept.
        case refreshed
        /// The parent store's newer values were merged into the object: a did-save merge, or a
        /// conflict resolved by a merge policy.
        case merged
        /// Rollback restored the object's last saved values (or a `.rollback` merge policy did).
        case rolledBack
        /// A save made the object unchanged (an inserted or updated object is now saved; a
        /// deleted one left the context).
        case saved
        /// The object left the context (reset, rollback of an insert, a delete merged from
        /// elsewhere, a conflict resolved by dropping it).
        case forgotten
    }

    /// What happened.
    let kind: Kind
    /// The object it happened to.
    let object: ManagedObject
    /// The object's change state before.
    let previous: ObjectChange
}
