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

/// The class of the last entity a fetch made an object of: a run of one entity's rows reads
/// `EntityDescription.managedObjectClass` (a runtime cast of the stored class) once instead of
/// once per row. Lives for one registering pass, while the rows hold their entities (so an
/// entity's identifier cannot be reused by another within it). Used on one context's queue.
struct EntityClassCache {
    /// The entity whose class ``cachedClass`` is; nil before the first look-up.
    private var entity: ObjectIdentifier?
    private var cachedClass: ManagedObject.Type = ManagedObject.self

    /// The class instantiated for `entity`'s objects.
    @inline(__always) mutating func objectClass(of entity: EntityDescription) -> ManagedObject.Type {
        let identifier = ObjectIdentifier(entity)
        if identifier != self.entity {
            self.entity = identifier
            cachedClass = entity.managedObjectClass
        }
        return cachedClass
    }
}
