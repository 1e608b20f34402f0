import Dispatch
import Foundation
import StrataLocks

/// The context side of an asynchronous fetch (`AsynchronousFetchRequest` and the `async`
/// fetch forms): plan on the context's queue, read the store rows on another thread, then
/// register them on the context's queue with the machinery `fetch(_:)` uses.
///
/// 1. On the context's queue, ``startBackgroundFetch(_:job:finish:)`` decides the store read:
///    the request's plan, or — when unsaved changes touch the fetched entities and the request
///    includes them — the plan `fetch(_:)` would read to merge them (no offset, limit widened).
/// 2. A global dispatch queue runs the read through the context's parent store: the coordinator
///    gives it a reader connection of the SQLite store's pool (the writer and the context's
///    queue stay free); a parent context answers on its own queue while this thread waits
///    (waits go up the tree). The read reports its rows to the fetch's ``ReadWatcher``, which
///    stops it when the fetch is cancelled.
/// 3. Back on the context's queue (a `perform` block) the rows are registered (identity map,
///    faults, `returnsObjectsAsFaults`, batch faults, prefetching) and the unsaved changes
///    merged in, exactly as `fetch(_:)` does — unless the fetch was cancelled meanwhile, in
///    which case nothing is registered. If unsaved changes appeared after the read began in a
///    way its rows cannot be merged with, the rows are read again there, synchronously.
extension ManagedObjectContext {
    /// The spec of an asynchronous fetch of `request`, with its entity resolved and its plan
    /// made: throws for an unknown entity or key, a malformed predicate, or a result type an
    /// asynchronous fetch does not read off the queue (dictionaries, counts). `output` nil
    /// follows the request's `resultType`. Reads only `request` and the frozen model: callable
    /// from any thread that may touch `request`.
    func backgroundFetchSpec<T>(_ request: FetchRequest<T>, output: BackgroundFetchSpec.Output? = nil, estimatedResultCount: Int) throws -> BackgroundFetchSpec {
        let entity = try resolveEntity(of: request)
        let kind: BackgroundFetchSpec.Output
        if let output {
            kind = output
        } else {
            switch request.resultType {
            case .managedObjectIDResultType: kind = .objectIDs
            case .dictionaryResultType, .countResultType:
                throw StrataError(
                    code: StrataError.Code.coreData,
                    message: "An asynchronous fetch off the context's queue returns objects or object IDs, not dictionaries or counts: run that request with fetch(_:) in perform",
                    entityName: entity.name)
            default: kind = .objects
            }
        }
        return BackgroundFetchSpec(
            entity: entity, plan: try makePlan(request, entity: entity, kind: .rows), output: kind,
            idsOnly: request.fetchBatchSize > 0 || !request.includesPropertyValues, batchSize: request.fetchBatchSize,
            includesPendingChanges: request.includesPendingChanges, returnsObjectsAsFaults: request.returnsObjectsAsFaults,
            refreshesRefetchedObjects: request.shouldRefreshRefetchedObjects, prefetchKeyPaths: request.relationshipKeyPathsForPrefetching ?? [],
            estimatedResultCount: max(0, estimatedResultCount))
    }

    /// Starts the asynchronous fetch `spec` describes and returns at once; `finish` runs later
    /// on the context's queue (in its own `perform` block) with the results registered in the
    /// context, or with the error: the cancellation error (3072) when `job` was cancelled
    /// before the results were registered (nothing is registered then), else the planning,
    /// store or registration error. Call on the context's queue.
    func startBackgroundFetch(_ spec: BackgroundFetchSpec, job: BackgroundFetch, finish: @escaping @Sendable (Result<BackgroundFetchResults, any Error>) -> Void) {
        checkAccess("execute(_:) (asynchronous fetch)")
        let read: BackgroundRead
        do {
            read = try backgroundRead(for: spec)
        } catch {
            perform { finish(.failure(error)) }
            return
        }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let loaded = Result { try read.run(job, estimatedResultCount: spec.estimatedResultCount) }
            perform { [self] in
                finish(completeBackgroundFetch(spec, read: read, loaded: loaded, job: job))
            }
        }
    }

    /// Step 1 (on the queue): what to read, and from whom.
    private func backgroundRead(for spec: BackgroundFetchSpec) throws -> BackgroundRead {
        let parent = try requireParentStore()
        if spec.includesPendingChanges, hasPendingChanges(for: spec.plan) {
            let overlay = overlayReadPlan(spec.plan)
            return BackgroundRead(parent: parent, plan: overlay.plan, mergesPendingChanges: true, changedHere: overlay.changedHere, readsIDs: false)
        }
        let readsIDs = spec.output == .objectIDs || spec.idsOnly
        return BackgroundRead(parent: parent, plan: spec.plan.with(resultKind: readsIDs ? .objectIDs : .rows), mergesPendingChanges: false, changedHere: 0, readsIDs: readsIDs)
    }

    /// Step 3 (on the queue): the final progress, then the results registered — or nothing
    /// registered when the fetch was cancelled.
    private func completeBackgroundFetch(
        _ spec: BackgroundFetchSpec, read: BackgroundRead, loaded: Result<BackgroundRead.Loaded, any Error>, job: BackgroundFetch
    ) -> Result<BackgroundFetchResults, any Error> {
        checkAccess("asynchronous fetch completion")
        job.relay.apply()
        // Foundation runs a progress's cancellation handler later, on a global queue: a
        // progress cancelled on this queue may not have reached the watcher yet.
        if job.progress.isCancelled { job.cancel() }
        if job.isCancelled { return .failure(ReadWatcher.cancellationError()) }
        do {
            let results = try registerBackgroundResults(spec, read: read, loaded: try loaded.get())
            job.relay.complete()
            return .success(results)
        } catch {
            return .failure(job.isCancelled ? ReadWatcher.cancellationError() : error)
        }
    }

    /// The rows (or IDs) read, registered as `fetch(_:)` registers them.
    private func registerBackgroundResults(_ spec: BackgroundFetchSpec, read: BackgroundRead, loaded: BackgroundRead.Loaded) throws -> BackgroundFetchResults {
        let pendingNow = spec.includesPendingChanges && hasPendingChanges(for: spec.plan)
        var objects: [ManagedObject]
        if read.mergesPendingChanges || pendingNow {
            if read.mergesPendingChanges, case .rows(let rows) = loaded, !(spec.plan.limit > 0 && changedObjectCount(for: spec.plan) > read.changedHere) {
                objects = try mergePendingChanges(into: rows, plan: spec.plan)
            } else {
                // Unsaved changes appeared (or, under a limit, grew) after the read began: its
                // rows cannot be merged with them, so the store is read again, here.
                objects = try mergedObjects(spec.plan, options: .default)
            }
            if spec.output == .objectIDs { return .objectIDs(objects.map(\.objectID)) }
            if !spec.returnsObjectsAsFaults && !spec.idsOnly { realise(objects) }
        } else {
            switch loaded {
            case .ids(let ids):
                if spec.output == .objectIDs { return .objectIDs(ids) }
                objects = ids.map { registeredOrFault($0) }
                if spec.batchSize > 0 { FaultBatch.link(objects, ids: ids, size: spec.batchSize) }
            case .rows(let rows):
                objects = []
                objects.reserveCapacity(rows.count)
                for row in rows {
                    objects.append(register(row, asFault: spec.returnsObjectsAsFaults, refresh: spec.refreshesRefetchedObjects))
                }
            }
        }
        if !spec.prefetchKeyPaths.isEmpty { try prefetch(spec.prefetchKeyPaths, for: objects) }
        return .objects(objects)
    }

    /// `results` as `[T]` (one check per class for objects, else one cast per element);
    /// throws when they are not `T`s.
    static func typedResults<T>(_ results: BackgroundFetchResults, entity: EntityDescription) throws -> [T] {
        switch results {
        case .objects(let objects):
            if let typed = typedObjects(objects, as: T.self) { return typed }
            return try converted(objects, entity: entity)
        case .objectIDs(let ids):
            return try converted(ids, entity: entity)
        }
    }
}

/// What an asynchronous fetch takes from its `FetchRequest` when it starts, so the read off
/// the context's queue never touches the (non-`Sendable`) request.
struct BackgroundFetchSpec: Sendable {
    /// What the fetch hands back.
    enum Output: Sendable {
        /// Objects registered in the context.
        case objects
        /// Object IDs (nothing is registered unless unsaved changes are merged in).
        case objectIDs
    }

    let entity: EntityDescription
    /// The request's plan (rows with values).
    let plan: FetchPlan
    let output: Output
    /// Objects are made from IDs only, as faults (`fetchBatchSize` set, or no property values).
    let idsOnly: Bool
    let batchSize: Int
    let includesPendingChanges: Bool
    let returnsObjectsAsFaults: Bool
    let refreshesRefetchedObjects: Bool
    let prefetchKeyPaths: [String]
    /// The progress total before the rows are counted; 0: count them first.
    let estimatedResultCount: Int
}

/// The results of an asynchronous fetch, on the context's queue.
enum BackgroundFetchResults {
    case objects([ManagedObject])
    case objectIDs([ManagedObjectID])
}

/// The store read of an asynchronous fetch, run off the context's queue.
struct BackgroundRead: Sendable {
    /// What a read gives back.
    enum Loaded: Sendable {
        case rows([RowSnapshot])
        case ids([ManagedObjectID])
    }

    let parent: any ParentStore
    let plan: FetchPlan
    /// The plan is the overlay read of `fetch(_:)` and the rows are merged with unsaved changes.
    let mergesPendingChanges: Bool
    /// The objects changed in the context when the read was planned (see `overlayReadPlan`).
    let changedHere: Int
    let readsIDs: Bool

    /// Counts the rows to read (unless an estimate was given) for the progress total, then
    /// reads them, reporting to the fetch's watcher. Throws the cancellation error once the
    /// fetch is cancelled, or the store's error.
    func run(_ job: BackgroundFetch, estimatedResultCount: Int) throws -> Loaded {
        try job.watcher.rowsRead(0)
        if estimatedResultCount > 0 {
            job.relay.setTotal(estimatedResultCount)
        } else {
            job.relay.setTotal(try parent.count(plan.with(resultKind: .count), options: .default))
        }
        let options = ReadOptions(watcher: job.watcher)
        if readsIDs { return .ids(try parent.fetchIDs(plan, options: options)) }
        return .rows(try parent.fetchRows(plan, options: options))
    }
}

/// One asynchronous fetch's state shared by the context's queue, the reading thread and
/// whoever cancels: its `Progress` (updated on the context's queue only), its watcher
/// (thread-safe) and the counts on their way to the progress.
final class BackgroundFetch: Sendable {
    /// The fetch's progress (unit: rows read). Touched on the context's queue only, since
    /// swift-corelibs-foundation's `Progress` is not thread-safe.
    let progress: Progress
    let watcher: ReadWatcher
    let relay: ProgressRelay

    /// A fetch reporting to `progress`, whose updates run on `queue` (the context's), and to
    /// `observer` on the reading thread. Cancelling
    /// `progress` (or its parent) cancels the fetch: Foundation calls the cancellation handler
    /// soon after, on a global queue, and the completion checks `progress.isCancelled` too.
    init(progress: Progress, queue: DispatchQueue, observer: (@Sendable (Int) -> Void)? = nil) {
        let relay = ProgressRelay(progress: progress, queue: queue)
        let watcher = ReadWatcher { count in
            relay.setCompleted(count)
            observer?(count)
        }
        self.progress = progress
        self.relay = relay
        self.watcher = watcher
        progress.isCancellable = true
        progress.cancellationHandler = { watcher.cancel() }
        if progress.isCancelled { watcher.cancel() }
    }

    /// Whether the fetch was cancelled.
    var isCancelled: Bool { watcher.isCancelled }

    /// Cancels the fetch: the read stops at its next report and nothing is registered.
    /// Callable from any thread.
    func cancel() { watcher.cancel() }
}

/// Carries row counts from the reading thread to a `Progress` on the context's queue: the
/// latest counts are kept under a lock and at most one update is queued at a time, so a
/// context queue that is busy (or a main queue not serviced) holds one block, not thousands.
final class ProgressRelay: Sendable {
    private struct Counts {
        var total: Int64 = -1
        var completed: Int64 = 0
        var updateQueued = false
    }

    // Progress is Sendable but not thread-safe on Linux: it is touched only in `apply()` and
    // `complete()`, which run on the context's queue.
    private let progress: Progress
    private let queue: DispatchQueue
    private let counts = StrataLock(Counts())

    init(progress: Progress, queue: DispatchQueue) {
        self.progress = progress
        self.queue = queue
    }

    /// The number of rows the read is expected to give (from any thread).
    func setTotal(_ total: Int) { update { $0.total = Int64(total) } }

    /// The number of rows read so far (from any thread).
    func setCompleted(_ completed: Int) { update { $0.completed = Int64(completed) } }

    private func update(_ change: (inout Counts) -> Void) {
        let enqueue = counts.withLock { counts -> Bool in
            change(&counts)
            if counts.updateQueued { return false }
            counts.updateQueued = true
            return true
        }
        if enqueue { queue.async { [self] in apply() } }
    }

    /// Gives the progress the latest counts (on the context's queue). The total never stays
    /// below the rows read (an estimate may be low).
    func apply() {
        let latest = counts.withLock { counts -> Counts in
            counts.updateQueued = false
            return counts
        }
        let total = latest.total >= 0 ? max(latest.total, latest.completed) : -1
        if progress.totalUnitCount != total { progress.totalUnitCount = total }
        if progress.completedUnitCount != latest.completed { progress.completedUnitCount = latest.completed }
    }

    /// Marks the progress finished (total = completed = rows read), on the context's queue.
    func complete() {
        let completed = counts.withLock { $0.completed }
        progress.totalUnitCount = completed
        progress.completedUnitCount = completed
    }
}

/// A value that belongs to one context's queue, carried through code running elsewhere
/// without being touched (like swift-nio's `NIOLoopBound`): it is opened only on the context's
/// queue, which the concurrency debug mode checks. Asynchronous fetches use it to hand their
/// non-`Sendable` request, result and completion from the queue, past the reading thread, back
/// to the queue.
struct ContextQueueBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is read only through `value`, on `context`'s queue (checked
    // in debug mode), where it was made; no other thread reads or writes it.
    private let stored: Value
    /// The context whose queue the value belongs to.
    let context: ManagedObjectContext

    /// Binds `value` to `context`'s queue. Call on that queue.
    init(_ value: Value, to context: ManagedObjectContext) {
        context.checkAccess("ContextQueueBound.init")
        self.stored = value
        self.context = context
    }

    /// The value. Call on the context's queue.
    var value: Value {
        context.checkAccess("ContextQueueBound.value")
        return stored
    }
}
