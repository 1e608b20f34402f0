/// The typed request of a fetched property (the model keeps it untyped).
extension FetchedPropertyDescription {
    /// Creates a fetched property with its request.
    public convenience init(name: String, fetchRequest: FetchRequest<ManagedObject>?) {
        self.init(name: name)
        self.requestStorage = fetchRequest
    }

    /// The request run for each source object.
    public var fetchRequest: FetchRequest<ManagedObject>? {
        get { requestStorage as? FetchRequest<ManagedObject> }
        set { mutate("fetchRequest") { requestStorage = newValue } }
    }
}
