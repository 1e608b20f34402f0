import Foundation

/// A fetched property: a named fetch request evaluated for an object, whose predicate may refer
/// to the object as `$FETCH_SOURCE` (Core Data's `NSFetchedPropertyDescription`).
///
/// The result is computed on first access and kept until the object is refreshed; it is not
/// kept in sync with later changes, as in Core Data.
///
/// Configure it before the model is used; once the model is frozen, read it from any queue. Its
/// results are computed on the source object's context's queue.
public final class FetchedPropertyDescription: PropertyDescription, @unchecked Sendable {
    /// The request run for each source object, untyped (the typed `fetchRequest` is in
    /// `Objects/FetchedPropertyDescription+Request.swift`).
    var requestStorage: (any UntypedFetchRequest)?

    /// Creates a fetched property without a request (set `fetchRequest` before use).
    public init(name: String) {
        super.init(name: name, isOptional: true)
        self.isTransient = true
    }

    override func appendVersionHashInputs(to hash: inout StableHash) {
        super.appendVersionHashInputs(to: &hash)
        hash.combine(requestStorage?.entityName ?? "")
    }
}
