/// How an undo manager hears of changes: it observes its context's unit of work (the one
/// change hook). A value about to be written is recorded in the open group (its old value);
/// an insert, delete or undelete records whether the object existed before. Everything else
/// the unit of work reports (saves, merges, refreshes, rollbacks, rows that vanished) is not
/// an edit and is not recorded. Called on the context's queue.
extension ObjectUndoManager: UnitOfWorkObserver {
    /// Whether changes reported now are recorded: registration is on, and the change is not
    /// one that undo or redo is applying.
    private var isRecording: Bool { disabledCount == 0 && !isApplying }

    /// The group to record into: the open one, or (grouping by event) a new one. Nil when
    /// nothing may be recorded (``groupsByEvent`` is off and no explicit group is open). The
    /// first change recorded after an undo empties the redo stack, as in Foundation.
    private func recordingGroup() -> UndoGroup? {
        if let openGroup { return openGroup }
        guard groupsByEvent else { return nil }
        let group = UndoGroup()
        openGroup = group
        openedByEvent = true
        return group
    }

    func unitOfWork(_ unitOfWork: UnitOfWork, didRecord change: UnitOfWorkChange) {
        guard isRecording else { return }
        let existedBefore: Bool
        switch change.kind {
        case .inserted, .undeleted: existedBefore = false
        case .deleted: existedBefore = change.previous != .deleted
        default: return
        }
        guard let context, let group = recordingGroup() else { return }
        if group.isEmpty { redoStack.removeAll() }
        _ = group.entryIndex(for: change.object, existedBefore: existedBefore)
        if change.kind == .deleted && existedBefore { group.recordRelationships(of: change.object, in: context) }
    }

    func unitOfWork(_ unitOfWork: UnitOfWork, willChange object: ManagedObject, at slot: PropertySlot) {
        guard isRecording, let context, let group = recordingGroup() else { return }
        if group.isEmpty { redoStack.removeAll() }
        group.recordBefore(slot, of: object, in: context)
    }

    /// The context finished an event (a `perform` block, or `processPendingChanges()`): the
    /// group the event opened is closed.
    func contextDidEndEvent() {
        guard openGroup != nil, openedByEvent, explicitDepth == 0 else { return }
        closeOpenGroup()
    }
}
