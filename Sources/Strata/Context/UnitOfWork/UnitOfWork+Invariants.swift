/// The unit of work's invariants as checks. They run only inside `assert` (debug builds), so
/// release builds pay nothing; each returns `true` or stops at `assertionFailure` naming the
/// broken rule and the object.
extension UnitOfWork {
    /// Checks one object: its change state agrees with the sets, and an object of this context
    /// is registered under its ID. Three set lookups and one registry lookup: cheap enough for
    /// every change.
    func checkConsistency(of object: ManagedObject) -> Bool {
        let change = object.change
        if inserted.contains(object) != (change == .inserted) {
            assertionFailure("unit of work: \(object.objectID) has change .\(change) but \(change == .inserted ? "is not" : "is") in the inserted set")
            return false
        }
        if updated.contains(object) != (change == .updated) {
            assertionFailure("unit of work: \(object.objectID) has change .\(change) but \(change == .updated ? "is not" : "is") in the updated set")
            return false
        }
        if deleted.contains(object) && change != .deleted {
            assertionFailure("unit of work: \(object.objectID) is in the deleted set but has change .\(change)")
            return false
        }
        if object.registry === registry, registry.object(for: object.objectID) !== object {
            assertionFailure("unit of work: \(object.objectID) belongs to this context but is not the object registered under its ID")
            return false
        }
        if change != .none && change != .deleted && object.registry !== registry {
            assertionFailure("unit of work: \(object.objectID) has change .\(change) but is not registered in this context")
            return false
        }
        return true
    }

    /// Checks the whole unit of work: every object of each set has that set's change state and is
    /// the object registered under its ID; every registered object is registered under its own ID
    /// (one object per ID) and is in the set its change state names. O(registered objects): run
    /// at save, rollback and reset only.
    func checkConsistency() -> Bool {
        for (set, expected) in [(inserted, ObjectChange.inserted), (updated, .updated), (deleted, .deleted)] {
            for object in set.objects {
                guard object.change == expected else {
                    assertionFailure("unit of work: \(object.objectID) is in the \(expected) set but has change .\(object.change)")
                    return false
                }
                guard object.registry === registry, registry.object(for: object.objectID) === object else {
                    assertionFailure("unit of work: \(object.objectID) is in the \(expected) set but is not the object registered under its ID")
                    return false
                }
            }
        }
        for object in registry.allObjects {
            guard registry.object(for: object.objectID) === object else {
                assertionFailure("unit of work: the registry holds \(object.objectID) under another ID, or two objects for it")
                return false
            }
            guard checkConsistency(of: object) else { return false }
        }
        return true
    }
}
