import Foundation

/// The kinds of request a context executes (Core Data's `NSPersistentStoreRequestType`).
///
/// A `Sendable` value: use it on any thread.
public enum PersistentStoreRequestType: Sendable {
    /// A ``FetchRequest``.
    case fetchRequestType
    /// A save (contexts save with `save()`; listed for Core Data's names).
    case saveRequestType
    /// A batch insert, straight on the store.
    case batchInsertRequestType
    /// A batch update, straight on the store (`BatchUpdateRequest`).
    case batchUpdateRequestType
    /// A batch delete, straight on the store.
    case batchDeleteRequestType
    /// A request that fetches or deletes persistent history (`PersistentHistoryChangeRequest`).
    case persistentHistoryRequestType
}

/// Everything a context can run with `execute(_:)` (Core Data's `NSPersistentStoreRequest`):
/// fetch requests and the requests that work straight on the store. Requests are configured
/// on one thread and then executed on the context's queue; they are not `Sendable`.
public protocol PersistentStoreRequest: AnyObject {
    /// The kind of request.
    var requestType: PersistentStoreRequestType { get }
}

/// What `execute(_:)` returns (Core Data's `NSPersistentStoreResult`): a subclass for each kind
/// of request, each with a `result`.
///
/// Made by `execute(_:)` on the context's queue; see each subclass for what may leave it.
open class PersistentStoreResult {
    /// Creates a result; subclasses set their own `result`.
    public init() {}
}

/// The result of executing a ``FetchRequest`` with `execute(_:)`: the fetched results, as
/// `fetch(_:)` returns them.
///
/// Returned by `execute(_:)` on the context's queue; managed objects in it stay on that queue (IDs,
/// dictionaries and counts may go to any thread).
public final class FetchResult: PersistentStoreResult {
    /// The fetched objects, IDs, dictionaries or count, as an array of the request's result type.
    public let result: Any?

    /// Wraps the results of a fetch.
    public init(result: Any?) {
        self.result = result
        super.init()
    }
}

extension FetchRequest: PersistentStoreRequest {
    /// `.fetchRequestType`.
    public var requestType: PersistentStoreRequestType { .fetchRequestType }
}
