import Foundation

/// The lazy result of ``ManagedObjectContext/fetchBatched(_:retainedBatches:)``: a random-access collection
/// whose IDs were fetched in one query (in sort order) and whose objects are loaded
/// `fetchBatchSize` at a time, in one query per batch, as elements are read. Only the most
/// recently read batches are kept; older ones are released, so iterating a million results
/// keeps memory flat (Core Data's batched fetch array).
///
/// Use it on its context's queue only, like the objects it returns.
///
/// Complexity: `count` is O(1); reading an element is O(1) within a loaded batch, one query
/// (O(batch size)) for the first element read in a batch.
public final class BatchedFetchResults<Element: ManagedObject>: RandomAccessCollection {
    private let context: ManagedObjectContext
    private let ids: ObjectIDList
    /// How many objects each batch holds.
    public let batchSize: Int
    /// How many batches stay loaded (the rest are released).
    public let retainedBatchCount: Int
    /// The loaded batches, oldest first (at most `retainedBatchCount`): a batch number and its
    /// objects, whose classes `fetchBatched` checked against `Element`.
    private var loaded: [(batch: Int, objects: [ManagedObject])] = []
    /// Batches loaded from the store so far.
    public private(set) var batchesLoaded = 0
    /// Batches released so far.
    public private(set) var batchesReleased = 0

    init(context: ManagedObjectContext, ids: ObjectIDList, batchSize: Int, retainedBatchCount: Int) {
        self.context = context
        self.ids = ids
        self.batchSize = Swift.max(1, batchSize)
        self.retainedBatchCount = Swift.max(1, retainedBatchCount)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ids.count }

    /// The object at `position`, loading its batch on first use. Call on the context's queue.
    public subscript(position: Int) -> Element {
        context.checkAccess("BatchedFetchResults[]")
        let batch = position / batchSize
        let objects = loadedObjects(of: batch) ?? load(batch)
        return Self.element(objects[position - batch * batchSize])
    }

    /// `object` as an `Element`: `fetchBatched` checked that every entity the fetch can return
    /// has `Element`'s class (or a subclass), so the cast cannot fail.
    @inline(__always) private static func element(_ object: ManagedObject) -> Element {
        (object as? Element) ?? unsafeDowncast(object, to: Element.self)
    }

    /// The objects of `batch` if it is loaded (the most recent batch is checked first).
    @inline(__always) private func loadedObjects(of batch: Int) -> [ManagedObject]? {
        for index in loaded.indices.reversed() where loaded[index].batch == batch { return loaded[index].objects }
        return nil
    }

    /// The object ID at `position`, without loading anything.
    public func objectID(at position: Int) -> ManagedObjectID { ids[position] }

    /// Loads `batch` (one read for the rows it lacks), first releasing the oldest loaded batch
    /// when `retainedBatchCount` are loaded, so a walk holds at most that many batches.
    private func load(_ batch: Int) -> [ManagedObject] {
        let start = batch * batchSize
        let end = Swift.min(ids.count, start + batchSize)
        while loaded.count >= retainedBatchCount {
            loaded.removeFirst()
            batchesReleased += 1
        }
        let objects = context.batchObjects(ids, positions: start..<end)
        batchesLoaded += 1
        loaded.append((batch, objects))
        return objects
    }
}

extension ManagedObjectContext {
    /// Runs `request` as a batched fetch: one query for the IDs of every match (in sort order),
    /// then objects with their values `fetchBatchSize` at a time (500 when the request has
    /// none) as the result is read. Memory stays proportional to the batch size, not to the
    /// number of matches. Unsaved changes count as for `fetch(_:)`. Call on the context's queue.
    public func fetchBatched<T: ManagedObject>(_ request: FetchRequest<T>, retainedBatches: Int = 2) throws -> BatchedFetchResults<T> {
        checkAccess("fetchBatched(_:)")
        let entity = try resolveEntity(of: request)
        let codes = request.includesSubentities ? entity.layout.descendantCodes : [entity.layout.code]
        for code in codes {
            let concrete = model?.entity(forCode: code) ?? entity
            guard concrete.managedObjectClass is T.Type else {
                throw StrataError(
                    code: StrataError.Code.coreData,
                    message: "Objects of entity '\(concrete.name)' are \(concrete.managedObjectClass), not \(T.self): use FetchRequest<\(concrete.managedObjectClass)>", entityName: concrete.name)
            }
        }
        let plan = try makePlan(request, entity: entity, kind: .objectIDs)
        let ids: ObjectIDList
        if request.includesPendingChanges, hasPendingChanges(for: plan) {
            ids = ObjectIDList(try objects(matching: plan.with(resultKind: .rows), options: .default).map(\.objectID), entity: entity)
        } else {
            ids = try requireParentStore().fetchIDList(plan, options: .default)
        }
        let size = request.fetchBatchSize > 0 ? request.fetchBatchSize : 500
        return BatchedFetchResults(context: self, ids: ids, batchSize: size, retainedBatchCount: retainedBatches)
    }
}
