import Foundation

/// The typed fetch-request API of a model: templates and lookups by class (the model keeps
/// templates untyped; see `Model/ManagedObjectModel.swift`).
extension ManagedObjectModel {
    /// Stores a fetch request under a name; its predicate may use `$VARIABLES`.
    public func setFetchRequestTemplate(_ request: FetchRequest<ManagedObject>?, forName name: String) {
        setTemplate(request.map { FetchRequestTemplate(request: $0) }, forName: name)
    }

    /// A copy of the template stored under `name`, or `nil`.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest<ManagedObject>? {
        template(named: name)?.makeRequest(as: ManagedObject.self)
    }

    /// A copy of the template `name` with `$VARIABLES` in its predicate replaced by
    /// `variables`. Throws if there is no such template or a variable has no value.
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) throws -> FetchRequest<ManagedObject> {
        guard let template = template(named: name) else {
            throw StrataError(code: StrataError.Code.coreData, message: "The model has no fetch request template named '\(name)'")
        }
        let request = template.makeRequest(as: ManagedObject.self)
        if let predicate = request.predicate {
            request.predicate = try predicate.substitutingVariables(variables)
        }
        return request
    }

    /// The entity whose `managedObjectClass` is exactly `type`, if any. Callable from any queue.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entity(forClass: type)
    }
}
