import Foundation

/// The lazy result of ``ManagedObjectContext/fetchBatched(_:)``: a random-access collection
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
    private var loaded: [Int: [Element]] = [:]
    private var loadOrder: [Int] = []
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
        if let objects = loaded[batch] { return objects[position - batch * batchSize] }
        let objects = load(batch)
        return objects[position - batch * batchSize]
    }

    /// The object ID at `position`, without loading anything.
    public func objectID(at position: Int) -> ManagedObjectID { ids[position] }

    private func load(_ batch: Int) -> [Element] {
        let start = batch * batchSize
        let end = Swift.min(ids.count, start + batchSize)
        let batchIDs = (start..<end).map { ids[$0] }
        let objects = context.objectsWithValues(for: batchIDs).map { object -> Element in
            // fetchBatched checked that every entity the fetch can return has Element's class
            // (or a subclass), so the downcast cannot fail.
            (object as? Element) ?? unsafeDowncast(object, to: Element.self)
        }
        batchesLoaded += 1
        loaded[batch] = objects
        loadOrder.append(batch)
        while loadOrder.count > retainedBatchCount {
            let evicted = loadOrder.removeFirst()
            loaded[evicted] = nil
            batchesReleased += 1
        }
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

    /// The objects for `ids`, in order, with their values loaded (one query for those not
    /// already loaded or cached).
    func objectsWithValues(for ids: [ManagedObjectID]) -> [ManagedObject] {
        let objects = ids.map { registeredOrFault($0) }
        let staleness = stalenessInterval
        let needed = objects.filter { $0.isFaultStorage && !($0.snapshot?.isFresh(stalenessInterval: staleness) ?? false) }.map(\.objectID)
        if !needed.isEmpty {
            do {
                try loadBatch(needed, maxAge: staleness)
            } catch let error as StrataError {
                recordContextProblem(error)
            } catch {
                recordContextProblem(StrataError(code: StrataError.Code.coreData, message: "Loading a batch failed: \(error)"))
            }
        }
        for object in objects where object.isFaultStorage {
            if let snapshot = object.snapshot {
                apply(snapshot, to: object)
            } else {
                fulfillFault(of: object)
            }
        }
        return objects
    }

    /// Loads the rows of one batch of a batched walk in one read and attaches each to its
    /// registered fault, which then fires without I/O. The one batch loader of both batched
    /// paths: a batch of ``BatchedFetchResults`` and the batch a fault of a `fetch` with
    /// `fetchBatchSize` belongs to. The read does not fill the row cache (a walk reads each row
    /// once and releases it a batch later: caching would only add an entry per row and a purge
    /// behind the reader) but takes cached rows no older than `maxAge`. Returns the rows read.
    @discardableResult
    func loadBatch(_ ids: [ManagedObjectID], maxAge: TimeInterval) throws -> [RowSnapshot] {
        let rows = try requireParentStore().snapshots(for: ids, options: ReadOptions(rowCache: .doNotFill, maxAge: maxAge))
        for row in rows {
            if let object = findRegistered(row.objectID), object.isFaultStorage {
                object.snapshot = row
                object.faultBatch = nil
            }
        }
        return rows
    }
}
