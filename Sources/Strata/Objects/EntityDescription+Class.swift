/// The class of an entity's objects: declared beside `ManagedObject`, since the model itself
/// does not depend on objects (`EntityDescription` keeps the class untyped).
extension EntityDescription {
    /// Creates an entity whose objects are instances of `managedObjectClass`.
    public convenience init(name: String, managedObjectClass: ManagedObject.Type) {
        self.init(name: name)
        self.managedObjectClassStorage = managedObjectClass == ManagedObject.self ? nil : managedObjectClass
    }

    /// The class instantiated for the entity's objects.
    public var managedObjectClass: ManagedObject.Type {
        get { (managedObjectClassStorage as? ManagedObject.Type) ?? ManagedObject.self }
        set { mutate("managedObjectClass") { managedObjectClassStorage = newValue == ManagedObject.self ? nil : newValue } }
    }
}
