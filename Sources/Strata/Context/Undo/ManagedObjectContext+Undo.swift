/// The context's side of undo: the `undoManager` property, and applying an undo group's
/// "before" or "after" side to the objects.
extension ManagedObjectContext {
    /// The undo manager that records this context's changes, or nil (the default, as in Core
    /// Data on iOS): without one nothing is recorded and value changes cost nothing extra.
    /// Setting a manager starts recording from the next change; setting nil (or another
    /// manager) stops the old one recording (its stacks stay). A manager serves one context:
    /// assigning one that another live context uses is refused and recorded as a problem for
    /// the next `save()`. Call on the context's queue.
    public var undoManager: ObjectUndoManager? {
        get {
            checkAccess("undoManager")
            return state.undoManager
        }
        set {
            checkAccess("undoManager")
            guard newValue !== state.undoManager else { return }
            if let manager = newValue, let other = manager.context, other !== self {
                recordContextProblem(
                    StrataError(code: StrataError.Code.coreData, message: "undoManager: this ObjectUndoManager already records the changes of \(other); give each context its own"))
                return
            }
            if let old = state.undoManager {
                old.contextDidEndEvent()  // the changes of the current event stay undoable
                state.work.removeObserver(old)
                old.context = nil
            }
            state.undoManager = newValue
            if let manager = newValue {
                manager.context = self
                state.work.addObserver(manager)
            }
        }
    }

    /// Whether `object` is part of this context's graph for undo: registered here and not
    /// deleted.
    func undoExists(_ object: ManagedObject) -> Bool {
        object.link === self && object.change != .deleted
    }

    /// Applies one side of `group` (the "after" side when `redoing`, else the "before" side).
    /// First every object the group inserted or deleted is put in or taken out of the graph as
    /// that side says, without delete rules (the partners the rules changed are in the group
    /// themselves). Then each recorded property of an object in the graph gets its value,
    /// without inverse maintenance for the same reason; values already equal are left alone.
    /// Objects whose values changed become updated (inserted ones stay inserted), and
    /// objects-did-change is posted. The undo manager records none of it. O(recorded values).
    func applyUndoGroup(_ group: UndoGroup, redoing: Bool) {
        var inserted: [ManagedObject] = []
        var renewed = Set<ObjectIdentifier>()
        var deleted: [ManagedObject] = []
        // Only a group that inserted or deleted an object moves it in or out of the graph (an
        // object a merge removed since is not brought back by undoing an edit of it).
        for entry in group.entries where entry.existedBefore != entry.existsAfter {
            let wanted = redoing ? entry.existsAfter : entry.existedBefore
            let exists = undoExists(entry.object)
            if wanted && !exists {
                let wasLinked = entry.object.link === self
                if reinsertForUndo(entry.object) {
                    inserted.append(entry.object)
                    if !wasLinked { renewed.insert(ObjectIdentifier(entry.object)) }
                }
            } else if !wanted && exists {
                state.work.delete(entry.object)
                deleted.append(entry.object)
            }
        }
        // Objects out of the graph keep the values they had (as deleted objects do).
        for entry in group.entries where undoExists(entry.object) {
            let object = entry.object
            // A renewed object's relationships hold IDs from before it left: all are rewritten.
            let compares = !renewed.contains(ObjectIdentifier(object))
            var changed = false
            for (slot, value) in zip(entry.slots, redoing ? entry.after : entry.before) {
                if compares, let current = UndoValue.read(slot, of: object, in: self), current.isSame(as: value) { continue }
                write(value, to: object, at: slot)
                changed = true
            }
            guard changed else { continue }
            if object.change == .none { state.work.markUpdated(object, because: .updated) }
            noteEvent(.updated, for: object)
        }
        for object in inserted { noteEvent(.inserted, for: object) }
        for object in deleted { noteEvent(.deleted, for: object) }
        processPendingChanges()
    }

    /// Puts a deleted object back into the graph. One still registered (its delete not saved,
    /// or an undone insert) is undeleted: inserted again if it has no row, else updated. One
    /// whose deletion was saved (it left the context) is inserted as a new object with a new
    /// temporary ID, its values as they were, so the next save writes it again. Returns false
    /// for an object of another context.
    private func reinsertForUndo(_ object: ManagedObject) -> Bool {
        if object.link === self {
            state.work.undelete(object)
            return true
        }
        guard object.registry == nil else { return false }
        let layout = object.entity.layout
        object.objectID = ManagedObjectID(temporaryFor: object.entity)
        object.snapshot = nil
        object.isFaultStorage = false
        object.faultBatch = nil
        if object.attributeValues.count != layout.storedAttributes.count { prepareStorage(of: object, defaults: false) }
        // No row: nothing is committed, and contents never loaded are gone with the row.
        object.committedToMany = Array(repeating: ToManyValue(), count: layout.toManyRelationships.count)
        object.toManyValues = (0..<layout.toManyRelationships.count).map { slot in
            (slot < object.toManyValues.count ? object.toManyValues[slot] : nil) ?? ToManyValue()
        }
        object.pendingToMany = [:]
        object.changedMask.removeAll()
        attach(object)
        state.work.insert(object)
        return true
    }

    /// Writes a recorded value into `object`'s storage, marking the property changed (no
    /// inverse maintenance, no change hook).
    private func write(_ value: UndoValue, to object: ManagedObject, at slot: PropertySlot) {
        switch (slot, value) {
        case (.attribute(let index), .attribute(let stored)):
            object.fireFaultIfNeeded()
            guard index < object.attributeValues.count else { return }
            object.attributeValues[index] = stored
        case (.transient(let index), .transient(let transient)):
            object.fireFaultIfNeeded()
            guard index < object.transientValues.count else { return }
            object.transientValues[index] = transient
        case (.toOne(let index), .toOne(let target)):
            object.fireFaultIfNeeded()
            guard index < object.toOneValues.count else { return }
            object.toOneValues[index] = target?.objectID
        case (.toMany(let index), .toMany(let targets)):
            object.ensureToManyLoaded(slot: index)
            guard index < object.toManyValues.count else { return }
            object.toManyValues[index] = ToManyValue(targets.map(\.objectID))
            object.pendingToMany[index] = nil
        default:
            return
        }
        if let index = object.entity.layout.changeIndex(of: slot) { object.changedMask.insert(index) }
        object.changedSinceWillSave = true
    }
}
