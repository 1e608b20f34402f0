/// The context's state records its objects' changes itself (see `Objects/ObjectChangeRecorder.swift`):
/// a setter reaches it through the object's registry without retaining the context.
extension ContextState: ObjectChangeRecorder {
    func objectDidChange(_ object: ManagedObject) {
        guard object.registry === registry else { return }
        // An inserted object's edits after its insert was reported are updates to report (Core
        // Data's objects-did-change lists them under the updated key).
        if work.recordValueChange(object) || (object.change == .inserted && object.eventChanges.isEmpty) {
            noteEvent(.updated, for: object)
        }
    }

    /// Records that `object` changed in the current event.
    func noteEvent(_ change: EventChanges, for object: ManagedObject) {
        if object.eventChanges.isEmpty { eventObjects.append(object) }
        object.eventChanges.insert(change)
    }
}
