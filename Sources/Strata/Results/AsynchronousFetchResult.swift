import Foundation

/// What `execute(_:)` returns at once for an ``AsynchronousFetchRequest`` (Core Data's
/// `NSAsynchronousFetchResult`): the fetch's progress, a way to cancel it, and — once its
/// completion runs on the context's queue — its results or its error.
///
/// **Queue.** The result belongs to the context's queue, like the objects it holds: read
/// ``finalResult`` and ``operationError`` there (the concurrency debug mode checks it); the
/// fetch updates ``progress`` there too. It is not `Sendable`.
///
/// **Cancelling.** ``cancel()``, or `cancel()` on ``progress`` (or on a parent progress),
/// stops the store read within a few thousand rows and gives its connection back. The
/// completion still runs, on the context's queue, with ``finalResult`` nil and
/// ``operationError`` a `StrataError` with code 3072 (Cocoa's `NSUserCancelledError`), and
/// nothing the fetch read is registered in the context. A fetch cancelled after its
/// completion ran keeps its results.
public final class AsynchronousFetchResult<ResultType>: PersistentStoreResult {
    /// The request this is the result of. Read on the context's queue.
    public let fetchRequest: AsynchronousFetchRequest<ResultType>
    /// The context that runs the fetch; its queue runs the completion. The context is
    /// `Sendable`: read this anywhere the result is.
    public let managedObjectContext: ManagedObjectContext
    /// The fetch's progress, counting rows read: `totalUnitCount` is -1 (indeterminate) until
    /// the rows are counted (or the request's `estimatedResultCount` when set), then the
    /// count; `completedUnitCount` grows as rows are read (every few thousand rows); when the
    /// completion runs with results both are the number of rows read. Created as a child of
    /// the current `Progress` of the thread that executed the request, if any (Foundation's
    /// implicit composition). Updated on the context's queue: swift-corelibs-foundation's
    /// `Progress` is not thread-safe and has no key-value observing, so read it there (in a
    /// `perform` block). Cancelling it cancels the fetch.
    public let progress: Progress
    private let job: BackgroundFetch
    /// The rows the off-queue read reported so far. Thread-safe (tests use it to act while
    /// the read runs).
    var rowsReadSoFar: Int { job.watcher.rowsReported }
    private var storedResult: [ResultType]?
    private var storedError: (any Error)?
    private var isFinished = false

    init(request: AsynchronousFetchRequest<ResultType>, context: ManagedObjectContext, progress: Progress, job: BackgroundFetch) {
        self.fetchRequest = request
        self.managedObjectContext = context
        self.progress = progress
        self.job = job
        super.init()
    }

    /// The fetched results — as `fetch(_:)` returns them, registered in the context — once the
    /// completion runs; nil before, and nil when the fetch failed or was cancelled. Read on
    /// the context's queue.
    public var finalResult: [ResultType]? {
        managedObjectContext.checkAccess("AsynchronousFetchResult.finalResult")
        return storedResult
    }

    /// Why the fetch gave no results, once the completion runs: the cancellation error
    /// (`StrataError` code 3072) or the fetch's error (unknown entity or key, malformed
    /// predicate, store failure). nil before, and after a successful fetch. Read on the
    /// context's queue.
    public var operationError: (any Error)? {
        managedObjectContext.checkAccess("AsynchronousFetchResult.operationError")
        return storedError
    }

    /// Cancels the fetch (as `progress.cancel()` does): the store read stops, nothing is
    /// registered, and the completion runs with ``operationError`` set to the cancellation
    /// error. No effect once the completion has run. Call on the context's queue (from
    /// another thread, cancel ``progress``).
    public func cancel() {
        managedObjectContext.checkAccess("AsynchronousFetchResult.cancel()")
        guard !isFinished else { return }
        job.cancel()
        if !progress.isCancelled { progress.cancel() }
    }

    /// Records the outcome and runs the request's completion. On the context's queue.
    func finish(_ outcome: Result<[ResultType], any Error>) {
        managedObjectContext.checkAccess("asynchronous fetch completion")
        isFinished = true
        switch outcome {
        case .success(let results): storedResult = results
        case .failure(let error): storedError = error
        }
        fetchRequest.completionBlock?(self)
    }
}
