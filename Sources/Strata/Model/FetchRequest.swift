import Foundation

/// What a fetch returns (Core Data's `NSFetchRequestResultType`).
///
/// A `Sendable` value: use it on any thread.
public struct FetchRequestResultType: OptionSet, Sendable, Hashable {
    /// The result type's bits (Core Data's values).
    public let rawValue: UInt
    /// Creates a result type from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Managed objects (the default); use `FetchRequest<YourClass>` or `FetchRequest<ManagedObject>`.
    public static let managedObjectResultType = FetchRequestResultType([])
    /// Object IDs; use `FetchRequest<ManagedObjectID>`.
    public static let managedObjectIDResultType = FetchRequestResultType(rawValue: 1)
    /// Dictionaries of the `propertiesToFetch`; use `FetchRequest<NSDictionary>`.
    public static let dictionaryResultType = FetchRequestResultType(rawValue: 2)
    /// The number of matches as one `NSNumber`; use `FetchRequest<NSNumber>`.
    public static let countResultType = FetchRequestResultType(rawValue: 4)
}

/// A description of objects to fetch (Core Data's `NSFetchRequest`).
///
/// ```swift
/// let request = FetchRequest<Person>(entityName: "Person")
/// request.predicate = ObjectPredicate(format: "age > %@", 30)
/// request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
/// request.fetchLimit = 20
/// ```
/// A request is a plain configuration object: build it on any thread, then execute it inside
/// the context's `perform`/`performAndWait`. It is not `Sendable`; build one per queue.
public final class FetchRequest<ResultType>: CustomStringConvertible {
    /// The name of the entity to fetch.
    public var entityName: String?
    /// The entity to fetch; takes precedence over `entityName`.
    public var entity: EntityDescription?
    /// Which objects match; `nil` matches all.
    public var predicate: ObjectPredicate?
    /// The order of the results; without it, results come in primary-key (insertion) order.
    public var sortDescriptors: [ObjectSortDescriptor]?
    /// The most results to return; 0 for no limit. Runs as SQL `LIMIT`.
    public var fetchLimit = 0
    /// How many leading results to skip. Runs as SQL `OFFSET`.
    public var fetchOffset = 0
    /// When non-zero, results load their values this many at a time as they are touched.
    public var fetchBatchSize = 0
    /// What the fetch returns.
    public var resultType: FetchRequestResultType = .managedObjectResultType
    /// Whether sub-entities' objects are included (default true).
    public var includesSubentities = true
    /// Whether the context's unsaved inserts, updates and deletes count (default true). As in
    /// Core Data, dictionary results (`.dictionaryResultType`, aggregates included) reflect only
    /// what is saved, whatever this says, unless ``dictionaryResultsIncludePendingChanges`` opts in.
    public var includesPendingChanges = true
    /// Strata only: whether dictionary results (`.dictionaryResultType`) are computed over the
    /// context's objects with their unsaved changes (and those of parent contexts) when
    /// ``includesPendingChanges`` is true too. Default false: dictionary results are computed
    /// by the store from saved rows, as Core Data does.
    public var dictionaryResultsIncludePendingChanges = false
    /// Whether objects come back as faults (values loaded on first access; default true).
    public var returnsObjectsAsFaults = true
    /// Whether the fetch loads values at all (false: IDs only, values on first access).
    public var includesPropertyValues = true
    /// Whether fetched objects already registered get fresh values from the store.
    public var shouldRefreshRefetchedObjects = false
    /// Relationship key paths whose objects are loaded with the results, one query per path.
    public var relationshipKeyPathsForPrefetching: [String]?
    /// For dictionary results: attribute names, key paths or `ExpressionDescription`s.
    public var propertiesToFetch: [Any]?
    /// For dictionary results: the properties to group by.
    public var propertiesToGroupBy: [Any]?
    /// For grouped dictionary results: which groups to keep.
    public var havingPredicate: ObjectPredicate?
    /// For dictionary results: drop duplicate dictionaries.
    public var returnsDistinctResults = false
    /// The class a request made by `ManagedObject.fetchRequest()` was made for (its entity is
    /// looked up by class when the name is not an entity name).
    var entityClass: AnyClass?

    /// Creates a request for the entity named `entityName`.
    public init(entityName: String) {
        self.entityName = entityName
    }

    /// Creates a request; set `entityName` or `entity` before executing it.
    public init() {}

    /// Creates a request for `entity`.
    public convenience init(entity: EntityDescription) {
        self.init(entityName: entity.name)
        self.entity = entity
    }

    /// A copy of the request (the copy can be configured independently).
    public func copy() -> FetchRequest<ResultType> {
        copy(as: ResultType.self)
    }

    /// A copy of the request with another result element type.
    public func copy<Other>(as type: Other.Type) -> FetchRequest<Other> {
        let copy = FetchRequest<Other>()
        copy.entityName = entityName
        copy.entity = entity
        copy.predicate = predicate
        copy.sortDescriptors = sortDescriptors
        copy.fetchLimit = fetchLimit
        copy.fetchOffset = fetchOffset
        copy.fetchBatchSize = fetchBatchSize
        copy.resultType = resultType
        copy.includesSubentities = includesSubentities
        copy.includesPendingChanges = includesPendingChanges
        copy.dictionaryResultsIncludePendingChanges = dictionaryResultsIncludePendingChanges
        copy.returnsObjectsAsFaults = returnsObjectsAsFaults
        copy.includesPropertyValues = includesPropertyValues
        copy.shouldRefreshRefetchedObjects = shouldRefreshRefetchedObjects
        copy.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
        copy.propertiesToFetch = propertiesToFetch
        copy.propertiesToGroupBy = propertiesToGroupBy
        copy.havingPredicate = havingPredicate
        copy.returnsDistinctResults = returnsDistinctResults
        copy.entityClass = entityClass
        return copy
    }

    /// A summary: entity, predicate, sort, limit, offset and batch size.
    public var description: String {
        var parts = ["entity: \(entity?.name ?? entityName ?? "?")"]
        if let predicate { parts.append("predicate: (\(predicate))") }
        if let sortDescriptors, !sortDescriptors.isEmpty { parts.append("sort: \(sortDescriptors)") }
        if fetchLimit > 0 { parts.append("limit: \(fetchLimit)") }
        if fetchOffset > 0 { parts.append("offset: \(fetchOffset)") }
        if fetchBatchSize > 0 { parts.append("batch: \(fetchBatchSize)") }
        return "<FetchRequest " + parts.joined(separator: ", ") + ">"
    }
}

/// What the model needs of a fetch request whatever its result type (a fetched property keeps
/// its request as one).
protocol UntypedFetchRequest: AnyObject {
    /// The name of the entity the request fetches.
    var entityName: String? { get }
}

extension FetchRequest: UntypedFetchRequest {}

/// A fetch request stored in a model (immutable copy of its settings): a model's named
/// templates and the requests of fetched properties.
struct FetchRequestTemplate: @unchecked Sendable {
    // @unchecked Sendable: holds an immutable private copy of the request, never mutated.
    private let request: FetchRequest<Any>

    init<T>(request: FetchRequest<T>) {
        self.request = request.copy(as: Any.self)
    }

    /// The name of the template's entity.
    var entityName: String? { request.entity?.name ?? request.entityName }

    /// A new request with the template's settings.
    func makeRequest<T>(as type: T.Type) -> FetchRequest<T> { request.copy(as: type) }
}
