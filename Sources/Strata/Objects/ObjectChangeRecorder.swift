/// Where an object records its first change in an event (it becomes updated unless inserted
/// or deleted, and joins the event that objects-did-change reports): the state of its context,
/// reached through the object's registry (``ObjectRegistry/changeRecorder``).
///
/// Not the context itself: every call into the context retains it, and a context's reference
/// count lives in a side table (the weak lists of root and child contexts, for automatic
/// merges), so each such retain takes the runtime's slow path. Recording a change runs no app
/// code, so nothing needs the context kept alive for it. Called on the context's queue.
protocol ObjectChangeRecorder: AnyObject {
    /// Notes that `object` changed (it becomes updated unless inserted or deleted).
    func objectDidChange(_ object: ManagedObject)
}
