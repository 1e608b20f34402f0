extension ManagedObject {
    /// A request for the objects of the entity whose class is this class (the entity is found
    /// by class when the request runs; its name defaults to the class name).
    public class func fetchRequest() -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: String(describing: self))
        request.entityClass = self
        return request
    }
}
