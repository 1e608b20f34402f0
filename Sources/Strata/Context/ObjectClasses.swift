/// The classes of a list of objects, noted while the list is made (a fetch notes each object as
/// it registers it, while the object is in the caches): a typed fetch then checks that its
/// results are of its class once per class instead of reading every object again
/// (`ManagedObjectContext.typedObjects(_:as:classes:)`). Used on one context's queue.
struct ObjectClasses {
    /// The class of the first object noted; nil before any.
    private(set) var sole: ManagedObject.Type?
    /// Whether every object noted so far is of the class ``sole`` (true before any).
    private(set) var isUniform = true

    /// Notes `object`'s class.
    @inline(__always) mutating func note(_ object: ManagedObject) {
        let objectClass = type(of: object)
        guard let sole else {
            sole = objectClass
            return
        }
        if ObjectIdentifier(sole) != ObjectIdentifier(objectClass) { isUniform = false }
    }
}
