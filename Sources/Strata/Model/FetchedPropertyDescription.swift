import Foundation

/// A fetched property: a named fetch request evaluated for an object, whose predicate may refer
/// to the object as `$FETCH_SOURCE` (Core Data's `NSFetchedPropertyDescription`).
///
/// The result is computed on first access and kept until the object is refreshed; it is not
/// kept in sync with later changes, as in Core Data.
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    private var _fetchRequest: FetchRequest<ManagedObject>?

    /// Creates a fetched property with its request.
    public init(name: String, fetchRequest: FetchRequest<ManagedObject>? = nil) {
        self._fetchRequest = fetchRequest
        super.init(name: name, isOptional: true)
        self.isTransient = true
    }

    /// The request run for each source object.
    public var fetchRequest: FetchRequest<ManagedObject>? {
        get { _fetchRequest }
        set { mutate("fetchRequest") { _fetchRequest = newValue } }
    }

    override func appendVersionHashInputs(to hash: inout StableHash) {
        super.appendVersionHashInputs(to: &hash)
        hash.combine(_fetchRequest?.entityName ?? "")
    }
}
