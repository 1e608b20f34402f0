/// The one three-way merge of an object's unsaved changes with a newer row of its parent store,
/// used by conflict resolution at save (`…ByProperty…` merge policies), by did-save merging
/// (`mergeChanges(fromContextDidSave:)`, automatic merges) and by `refresh(_:mergeChanges: true)`.
/// Used on the context's queue.
extension UnitOfWork {
    /// Which side keeps a property that both the object and the parent store changed since the
    /// object's base. A plain value, passed with a merge on the context's queue.
    enum MergeWinner {
        /// The object's unsaved value wins (`mergeByPropertyObjectTrump`; a did-save merge under
        /// `.error`, `…ObjectTrump` or `.overwrite`; `refresh(_:mergeChanges: true)`).
        case object
        /// The store's value wins (`mergeByPropertyStoreTrump`; a did-save merge under
        /// `…StoreTrump` or `.rollback`).
        case store
    }

    /// Merges the parent store's newer row `fresh` into `object`, whose unsaved changes were made
    /// against its base `object.snapshot`, property by property (stored attributes and to-ones):
    ///
    /// | the object changed it | the store changed it (base ≠ fresh) | result |
    /// |---|---|---|
    /// | no | — | the store's value |
    /// | yes | no | the object's value, still changed |
    /// | yes | yes | the `winner`'s value; still changed only if the object wins |
    ///
    /// **Unknown base.** When the object has no base (no snapshot, or one without the property)
    /// the store counts as having changed the property: a store-trumping merge takes the store's
    /// value. Both callers merge only because the store reports a newer row — a save's
    /// optimistic-locking conflict, or another context's save naming the object — so the property
    /// may well have changed there, and `mergeByPropertyStoreTrump` ("external changes trump
    /// in-memory changes") must not let a local value silently replace an external change it
    /// cannot rule out. The same rule in both callers also means a did-save merge decides a
    /// property exactly as the later save's conflict would have (the merge replaces the base, so
    /// that save no longer conflicts). With `winner: .object` the base does not matter.
    ///
    /// To-many and transient changes stay as they are (still changed); transient to-ones keep
    /// the object's value whether changed or not (`fresh` has none). Afterwards the object's
    /// base is `fresh`, its values are the merged ones, and its change mask holds the properties
    /// it still changes, which is returned. The object's change state is left to the caller: a
    /// save still writes the object (its version moves on), a did-save merge makes it unchanged
    /// when nothing is left. O(changed properties).
    @discardableResult
    func mergeUnsavedChanges(of object: ManagedObject, with fresh: RowSnapshot, winner: MergeWinner) -> ChangeMask {
        let base = object.snapshot
        let layout = object.entity.layout
        let attributeCount = layout.storedAttributes.count
        let toOneStart = attributeCount + layout.transientAttributes.count
        let toOneEnd = toOneStart + layout.toOneRelationships.count
        var attributes = fresh.attributes
        var toOne = layout.toOnes(fresh.toOne, keepingTransientOf: object.toOneValues)
        var remaining = ChangeMask()
        for index in object.changedMask.indexes {
            if index < attributeCount {
                let i = index
                guard i < attributes.count && i < object.attributeValues.count else {
                    remaining.insert(index)
                    continue
                }
                if winner == .store && Self.storeChanged(base.flatMap { i < $0.attributes.count ? !$0.attributes[i].isIdentical(to: fresh.attributes[i]) : nil }) { continue }
                attributes[i] = object.attributeValues[i]
                remaining.insert(index)
            } else if index >= toOneStart && index < toOneEnd {
                let i = index - toOneStart
                guard i < toOne.count && i < object.toOneValues.count else {
                    remaining.insert(index)
                    continue
                }
                if winner == .store && Self.storeChanged(base.flatMap { i < $0.toOne.count ? $0.toOne[i] != fresh.toOne[i] : nil }) { continue }
                toOne[i] = object.toOneValues[i]
                remaining.insert(index)
            } else {
                remaining.insert(index)  // to-many and transient changes stay as they are
            }
        }
        object.snapshot = fresh
        object.attributeValues = attributes
        object.toOneValues = toOne
        object.changedMask = remaining
        return remaining
    }

    /// Whether the store changed a property, given the comparison of base and fresh values
    /// (`nil`: no base to compare with — the store counts as having changed it).
    @inline(__always)
    private static func storeChanged(_ comparison: Bool?) -> Bool {
        comparison ?? true
    }
}
