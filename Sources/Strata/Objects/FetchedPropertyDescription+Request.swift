/// The typed request of a fetched property (the model keeps it untyped).
extension FetchedPropertyDescription {
    /// Creates a fetched property with its request.
    public convenience init(name: String, fetchRequest: FetchRequest<ManagedObject>?) {
        self.init(name: name)
        self.requestStorage = fetchRequest
    }

    /// The request run for each source object. A request read from a model file is kept
    /// untyped by the model; it is returned here as a `FetchRequest<ManagedObject>` copy.
    public var fetchRequest: FetchRequest<ManagedObject>? {
        get {
            if let typed = requestStorage as? FetchRequest<ManagedObject> { return typed }
            return (requestStorage as? FetchRequest<Any>)?.copy(as: ManagedObject.self)
        }
        set { mutate("fetchRequest") { requestStorage = newValue } }
    }
}
