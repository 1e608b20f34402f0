/// The model side of `ManagedObjectID`: its entity as an `EntityDescription`, and the
/// initializers that take one.
extension ManagedObjectID {
    /// The object's entity.
    public var entity: EntityDescription {
        // Every EntityIdentity is an EntityDescription (EntityIdentity's initializer is internal
        // and EntityDescription is its only subclass).
        unsafeDowncast(entityIdentity, to: EntityDescription.self)
    }

    init(entity: EntityDescription, primaryKey: Int64, store: StoreToken) {
        self.init(entityIdentity: entity, primaryKey: primaryKey, store: store)
    }

    init(temporaryFor entity: EntityDescription) {
        self.init(temporaryForEntityIdentity: entity)
    }

    init(entity: EntityDescription, temporaryNumber: UInt64) {
        self.init(entityIdentity: entity, temporaryNumber: temporaryNumber)
    }
}
