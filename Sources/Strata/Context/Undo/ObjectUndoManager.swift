/// Undo and redo for a managed object context (Core Data's use of Foundation's `UndoManager`,
/// which Foundation on Linux lacks).
///
/// Assign one to ``ManagedObjectContext/undoManager``; from then on the context records every
/// insert, delete and property change (attributes, to-one, to-many and ordered relationships
/// with their inverse sides, transient attributes and transient relationships) in undo groups:
///
/// ```swift
/// let undo = ObjectUndoManager()
/// context.performAndWait { context.undoManager = undo }
/// context.performAndWait { person.name = "Bo" }   // one group: the block
/// context.performAndWait {
///     undo.undo()                                  // the name is back
///     undo.redo()                                  // "Bo" again
/// }
/// ```
///
/// **Groups.** With ``groupsByEvent`` on (the default) each `perform` / `performAndWait` block,
/// and each call of ``ManagedObjectContext/processPendingChanges()``, closes the group of the
/// changes made since the last one. ``beginUndoGrouping()`` / ``endUndoGrouping()`` make
/// explicit groups, nestable; a nested group is part of the enclosing one, and ``undo()``
/// undoes a whole top-level group.
///
/// **What undo does.** It puts back the values and the inserted / deleted state of every
/// object the group changed, as they were before the group, and posts objects-did-change like
/// any edit; the group moves to the redo stack, and ``redo()`` applies it again. Changes made by
/// undo and redo are not recorded as new actions. After a save, undoing gives unsaved changes
/// relative to the store (an undone insert becomes a delete of the saved row, an undone delete a
/// new insert), which the next save writes.
///
/// **What is not recorded**: merges of other contexts' saves, refreshes, and values a save or a
/// fault brings in; ``ManagedObjectContext/rollback()`` and ``ManagedObjectContext/reset()``
/// remove all actions, as in Core Data.
///
/// **Bad use never traps**: ``undo()`` with nothing to undo, ``endUndoGrouping()`` without a
/// matching begin, or ``enableUndoRegistration()`` without a matching disable do nothing.
///
/// **Queue.** Not `Sendable`. Call on the context's queue (inside `perform` /
/// `performAndWait`), like the context's objects; the concurrency debug mode
/// (`STRATA_CONCURRENCY_DEBUG=1`) checks every call. A manager serves one context at a time.
public final class ObjectUndoManager {
    /// The context recording into this manager (set by `ManagedObjectContext.undoManager`).
    weak var context: ManagedObjectContext?
    /// Closed groups, oldest first.
    var undoStack: [UndoGroup] = []
    /// Undone groups, the next to redo last.
    var redoStack: [UndoGroup] = []
    /// The top-level group being recorded, if any.
    var openGroup: UndoGroup?
    /// Whether `openGroup` was opened by a change (``groupsByEvent``) rather than by
    /// ``beginUndoGrouping()``: then the end of the event closes it.
    var openedByEvent = false
    /// Explicit groups open (``beginUndoGrouping()`` calls not yet ended).
    var explicitDepth = 0
    /// ``disableUndoRegistration()`` calls not yet balanced.
    var disabledCount = 0
    private var groupsByEventStorage = true
    private var levelsStorage = 0
    private var undoing = false
    private var redoing = false
    /// Whether an undo or redo is being applied (its changes are not recorded).
    var isApplying: Bool { undoing || redoing }

    /// Creates a manager with no actions; assign it to a context's
    /// ``ManagedObjectContext/undoManager``. Call on the context's queue (before it is assigned,
    /// any thread will do: the manager is not attached to a context yet).
    public init() {}

    func checkAccess(_ call: StaticString) {
        context?.checkAccess(call)
    }

    // MARK: Settings

    /// Whether the context closes a group at the end of each event: each `perform` /
    /// `performAndWait` block and each ``ManagedObjectContext/processPendingChanges()``
    /// (default true, as Foundation's `UndoManager`). When false, changes are recorded only
    /// between ``beginUndoGrouping()`` and ``endUndoGrouping()``; changes made outside an
    /// explicit group are not recorded (Foundation would raise an exception). Call on the
    /// context's queue.
    public var groupsByEvent: Bool {
        get {
            checkAccess("groupsByEvent")
            return groupsByEventStorage
        }
        set {
            checkAccess("groupsByEvent")
            groupsByEventStorage = newValue
        }
    }

    /// The most top-level groups kept on the undo stack (and on the redo stack); the oldest are
    /// dropped beyond. 0 (the default) means no limit. Lowering it drops groups at once. Call on
    /// the context's queue.
    public var levelsOfUndo: Int {
        get {
            checkAccess("levelsOfUndo")
            return levelsStorage
        }
        set {
            checkAccess("levelsOfUndo")
            levelsStorage = max(0, newValue)
            trimStacks()
        }
    }

    // MARK: State

    /// Whether ``undo()`` has something to undo: a closed group, or changes recorded in the open
    /// group (which ``undo()`` closes first). Call on the context's queue.
    public var canUndo: Bool {
        checkAccess("canUndo")
        return !undoStack.isEmpty || openGroup?.isEmpty == false
    }

    /// Whether ``redo()`` has something to redo. A new change empties the redo stack. Call on
    /// the context's queue.
    public var canRedo: Bool {
        checkAccess("canRedo")
        return !redoStack.isEmpty
    }

    /// Whether an ``undo()`` is being applied (true while its objects-did-change is posted).
    /// Call on the context's queue.
    public var isUndoing: Bool {
        checkAccess("isUndoing")
        return undoing
    }

    /// Whether a ``redo()`` is being applied (true while its objects-did-change is posted).
    /// Call on the context's queue.
    public var isRedoing: Bool {
        checkAccess("isRedoing")
        return redoing
    }

    /// Whether changes are recorded: false between ``disableUndoRegistration()`` and the
    /// matching ``enableUndoRegistration()``. Call on the context's queue.
    public var isUndoRegistrationEnabled: Bool {
        checkAccess("isUndoRegistrationEnabled")
        return disabledCount == 0
    }

    /// The action name of the group ``undo()`` would undo ("" if none or unnamed). Call on the
    /// context's queue.
    public var undoActionName: String {
        checkAccess("undoActionName")
        if let openGroup, !openGroup.isEmpty { return openGroup.actionName }
        return undoStack.last?.actionName ?? ""
    }

    /// The action name of the group ``redo()`` would redo ("" if none or unnamed). Call on the
    /// context's queue.
    public var redoActionName: String {
        checkAccess("redoActionName")
        return redoStack.last?.actionName ?? ""
    }

    /// Names the action of the group being recorded (the open group; if none is open, the last
    /// group closed), as shown in an "Undo ‹name›" menu item. Call on the context's queue.
    public func setActionName(_ name: String) {
        checkAccess("setActionName(_:)")
        if let openGroup {
            openGroup.actionName = name
        } else {
            undoStack.last?.actionName = name
        }
    }

    // MARK: Registration

    /// Stops recording changes until the matching ``enableUndoRegistration()`` (calls nest: a
    /// counter). Changes already pending in the open group stay recorded. Call on the
    /// context's queue.
    public func disableUndoRegistration() {
        checkAccess("disableUndoRegistration()")
        disabledCount += 1
    }

    /// Balances one ``disableUndoRegistration()``; recording resumes when all are balanced. An
    /// unbalanced call does nothing. Call on the context's queue.
    public func enableUndoRegistration() {
        checkAccess("enableUndoRegistration()")
        if disabledCount > 0 { disabledCount -= 1 }
    }

    /// Empties the undo and redo stacks and drops the open group (its changes stay made but
    /// can no longer be undone); explicit groups still open are forgotten. The context calls it
    /// from ``ManagedObjectContext/rollback()`` and ``ManagedObjectContext/reset()``. Call on
    /// the context's queue.
    public func removeAllActions() {
        checkAccess("removeAllActions()")
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        openedByEvent = false
        explicitDepth = 0
    }

    // MARK: Grouping

    /// Opens an undo group: the changes until the matching ``endUndoGrouping()`` are undone
    /// together. Groups nest; a group begun while another (or the current event's group) is
    /// open is part of it. Call on the context's queue.
    public func beginUndoGrouping() {
        checkAccess("beginUndoGrouping()")
        if openGroup == nil {
            openGroup = UndoGroup()
            openedByEvent = false
        }
        explicitDepth += 1
    }

    /// Closes the group opened by the matching ``beginUndoGrouping()``; closing the outermost
    /// explicit group (not inside an event's group) puts it on the undo stack. Without an open
    /// explicit group it does nothing. Call on the context's queue.
    public func endUndoGrouping() {
        checkAccess("endUndoGrouping()")
        guard explicitDepth > 0 else { return }
        explicitDepth -= 1
        if explicitDepth == 0 && !openedByEvent { closeOpenGroup() }
    }

    // MARK: Undo and redo

    /// Undoes the last top-level group: the context's pending changes are processed first
    /// (closing the current event's group, or an explicit group open at one level), then every
    /// object of the group gets back its values and inserted / deleted state from before the
    /// group, objects-did-change is posted, and the group moves to the redo stack. Does nothing
    /// when there is nothing to undo, or while nested explicit groups are open. Call on the
    /// context's queue.
    public func undo() {
        checkAccess("undo()")
        guard !undoing, !redoing, let context else { return }
        context.processPendingChanges()
        if explicitDepth == 1 && !openedByEvent {
            explicitDepth = 0
            closeOpenGroup()
        }
        guard explicitDepth == 0, let group = undoStack.popLast() else { return }
        undoing = true
        defer { undoing = false }
        context.applyUndoGroup(group, redoing: false)
        redoStack.append(group)
        trimStacks()
    }

    /// Redoes the last undone group: its objects get back their values and inserted / deleted
    /// state from after the group, objects-did-change is posted, and the group goes back to the
    /// undo stack. Does nothing when there is nothing to redo. Call on the context's queue.
    public func redo() {
        checkAccess("redo()")
        guard !undoing, !redoing, let context else { return }
        context.processPendingChanges()
        guard explicitDepth == 0, openGroup?.isEmpty != false, let group = redoStack.popLast() else { return }
        redoing = true
        defer { redoing = false }
        context.applyUndoGroup(group, redoing: true)
        undoStack.append(group)
        trimStacks()
    }

    // MARK: Stacks

    /// Closes the open group and pushes it on the undo stack if it recorded anything.
    func closeOpenGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        openedByEvent = false
        guard let context, group.close(in: context) else { return }
        undoStack.append(group)
        trimStacks()
    }

    /// Drops the oldest groups beyond ``levelsOfUndo``.
    private func trimStacks() {
        guard levelsStorage > 0 else { return }
        if undoStack.count > levelsStorage { undoStack.removeFirst(undoStack.count - levelsStorage) }
        if redoStack.count > levelsStorage { redoStack.removeFirst(redoStack.count - levelsStorage) }
    }
}
