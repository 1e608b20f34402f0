import Foundation

/// The narrow interface through which an object reaches its context.
///
/// `Objects/` knows only this protocol, never the context type itself, so objects and contexts
/// stay separable and testable. The context implements it; every call happens on the
/// context's queue.
protocol ObjectContextLink: AnyObject {
    /// Traps (in concurrency debug mode) if the current thread is not allowed to touch the
    /// context; `call` names the API used.
    func checkAccess(_ call: StaticString)
    /// Loads a fault's values. On failure the problem is recorded for the next save.
    func fulfillFault(of object: ManagedObject)
    /// Loads a fault's values, throwing on failure (the object stays a fault).
    func fulfillFaultThrowing(of object: ManagedObject) throws
    /// Tells the context that the property in `slot` of `object` is about to change (its value
    /// is still the old one). Called only while ``ObjectRegistry/reportsEveryValueChange`` is
    /// on (an undo manager listens); see `ManagedObject.willChange(_:)`.
    func objectWillChange(_ object: ManagedObject, at slot: PropertySlot)
    /// Records a problem that the next `save()` reports (for APIs that cannot throw).
    func recordProblem(_ problem: StrataError, for object: ManagedObject)
    /// The object registered for `id`, or a new fault for it.
    func objectForRelationship(_ id: ManagedObjectID) -> ManagedObject
    /// The IDs a to-many relationship of `object` holds in the parent store.
    func loadToMany(of object: ManagedObject, relationship: RelationshipDescription) -> [ManagedObjectID]
    /// Runs a fetched property's request for `object`.
    func evaluateFetchedProperty(_ property: FetchedPropertyDescription, for object: ManagedObject) -> [ManagedObject]
    /// The context itself, as the public type (for `managedObjectContext`).
    var publicContext: ManagedObjectContext? { get }
}
