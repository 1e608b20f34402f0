import Foundation

/// Live relationship proxies and relationship IDs.
extension ManagedObject {
    /// A live, editable view of the to-many relationship `key` whose edits keep inverses in step
    /// (Core Data's `mutableSetValue(forKey:)`). Works for ordered relationships too (adds go at
    /// the end). If `key` is not a to-many relationship, the proxy is empty, ignores edits, and
    /// the next `save()` reports the problem. Call on the object's context's queue.
    public func mutableSetValue(forKey key: String) -> MutableRelationshipSet<ManagedObject> {
        checkAccess("mutableSetValue(forKey:)")
        return MutableRelationshipSet(editor: ToManyEditor(owner: self, key: key, ordered: false, call: "mutableSetValue(forKey:)"))
    }

    /// A live, editable view of the ordered to-many relationship `key`, with positions (Core
    /// Data's `mutableOrderedSetValue(forKey:)`). If `key` is not an ordered to-many, the proxy
    /// is empty, ignores edits, and the next `save()` reports the problem. Call on the object's
    /// context's queue.
    public func mutableOrderedSetValue(forKey key: String) -> MutableOrderedRelationshipSet<ManagedObject> {
        checkAccess("mutableOrderedSetValue(forKey:)")
        return MutableOrderedRelationshipSet(editor: ToManyEditor(owner: self, key: key, ordered: true, call: "mutableOrderedSetValue(forKey:)"))
    }

    /// The IDs of the objects the relationship `key` holds, without creating or loading those
    /// objects (Core Data's `objectIDs(forRelationshipNamed:)`): zero or one for a to-one, in
    /// order for an ordered to-many. A to-many not loaded yet is loaded (its IDs only, one
    /// query). An unknown key returns `[]` and records the problem for the next `save()`. Call
    /// on the object's context's queue.
    public func objectIDs(forRelationshipNamed key: String) -> [ManagedObjectID] {
        checkAccess("objectIDs(forRelationshipNamed:)")
        switch entity.layout.slot(forKey: key) {
        case .toOne(let slot)?:
            fireFaultIfNeeded()
            guard slot < toOneValues.count, let id = toOneValues[slot] else { return [] }
            return [id]
        case .toMany(let slot)?:
            return toManyIDs(slot: slot)
        default:
            record(
                StrataError(
                    code: StrataError.Code.managedObjectValidation,
                    message: "objectIDs(forRelationshipNamed:): '\(entity.name).\(key)' is not a relationship",
                    entityName: entity.name, key: key, objectID: objectID))
            return []
        }
    }
}
