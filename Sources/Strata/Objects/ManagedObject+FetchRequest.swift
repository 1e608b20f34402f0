import Foundation

/// What a fetch can return (Core Data's `NSFetchRequestResult`): managed objects, object IDs,
/// dictionaries and numbers conform. It also carries ``fetchRequest()`` for managed objects,
/// typed to the class it is called on.
///
/// `FetchRequest<ResultType>` does not require its element type to conform (a request typed
/// `FetchRequest<Any>` or `FetchRequest<AnyObject>` works too); the protocol names the four
/// kinds of result, as in Core Data, and lets a request be typed `FetchRequest<any
/// FetchRequestResult>` when one request is run with several result types.
///
/// A marker protocol; each conforming value says where it may be used (managed objects on their
/// context's queue, object IDs, dictionaries and numbers on any thread).
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ManagedObjectID: FetchRequestResult {}
extension NSDictionary: FetchRequestResult {}
extension NSNumber: FetchRequestResult {}

extension FetchRequestResult where Self: ManagedObject {
    /// A request for the objects of the entity whose class is this class, typed to the class:
    /// `Person.fetchRequest()` is a `FetchRequest<Person>` (Core Data's generated
    /// `@nonobjc class func fetchRequest() -> NSFetchRequest<Person>`, without code generation).
    ///
    /// The entity is found by class when the request runs (its `entityName` is the class name,
    /// used when the model has an entity of that name). Called on a metatype held as
    /// `ManagedObject.Type`, the request is typed `FetchRequest<ManagedObject>` and still fetches
    /// the entity of the object's dynamic class. A subclass that declares its own
    /// `class func fetchRequest()` (ported generated code) keeps it: a class's own method is
    /// chosen over this one. Callable from any thread; run the request on the context's queue.
    public static func fetchRequest() -> FetchRequest<Self> {
        let request = FetchRequest<Self>(entityName: String(describing: self))
        request.entityClass = self
        return request
    }
}
