/// Core Data's conveniences on `EntityDescription` that take a context. They live beside the
/// context, not in the model: the model knows nothing of contexts.
extension EntityDescription {
    /// Looks up an entity by name in the model of `context`'s coordinator. Callable from any queue.
    public static func entity(forEntityName name: String, in context: ManagedObjectContext) -> EntityDescription? {
        context.persistentStoreCoordinator?.managedObjectModel.entitiesByName[name]
    }

    /// Inserts a new object of the named entity into `context`. Throws an error naming the entity
    /// if the model has no such entity. Call it on the context's queue.
    @discardableResult
    public static func insertNewObject(forEntityName name: String, into context: ManagedObjectContext) throws -> ManagedObject {
        guard let entity = entity(forEntityName: name, in: context) else {
            throw StrataError(code: StrataError.Code.coreData, message: "The model has no entity named '\(name)'", entityName: name)
        }
        return try context.insertNewObject(of: entity)
    }
}
