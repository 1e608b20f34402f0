import Foundation

/// A fetch that reads the store off the context's queue and hands its results to a completion
/// on the context's queue (Core Data's `NSAsynchronousFetchRequest`).
///
/// ```swift
/// let request = FetchRequest<Person>(entityName: "Person")
/// let asynchronous = AsynchronousFetchRequest(fetchRequest: request) { result in
///     // On the context's queue: the objects are registered in the context.
///     if let people = result.finalResult { show(people) } else { report(result.operationError) }
/// }
/// let result = try context.execute(asynchronous) as? AsynchronousFetchResult<Person>
/// // result?.progress reports the rows read; result?.cancel() stops the fetch.
/// ```
///
/// `execute(_:)` returns an ``AsynchronousFetchResult`` at once. The store rows are read on a
/// reader connection (the SQLite store's pool), so the context's queue stays free meanwhile;
/// then, on the context's queue, the objects are registered as `fetch(_:)` registers them
/// (identity map, faults, row cache) with the context's unsaved changes merged in when the
/// request includes them, and the completion runs. Errors — an unknown entity or key, a
/// malformed predicate, a store failure — arrive there as ``AsynchronousFetchResult/operationError``;
/// `execute(_:)` does not throw them. Dictionary and count requests are answered by `fetch(_:)`
/// in a block of their own on the context's queue (their work happens in one SQL statement).
///
/// Like every request it is configured on one thread and executed on the context's queue; it
/// is not `Sendable`. The completion is not `@Sendable` either: it belongs to the context's
/// queue, where the request is executed, and runs there.
public final class AsynchronousFetchRequest<ResultType>: PersistentStoreRequest {
    /// The fetch to run: entity, predicate, sort, limit, offset, result type and the rest. Read
    /// it on the thread that configures the request, or on the context's queue once executed.
    public let fetchRequest: FetchRequest<ResultType>
    /// Runs on the context's queue when the fetch is over: with
    /// ``AsynchronousFetchResult/finalResult`` set, or ``AsynchronousFetchResult/operationError``
    /// set (cancellation included). Only the context's queue calls it.
    public let completionBlock: ((AsynchronousFetchResult<ResultType>) -> Void)?
    /// How many results the fetch is expected to give (Core Data's scheduling hint), used as
    /// the progress's `totalUnitCount` until the rows are read. 0 (the default): the rows are
    /// counted by one query before they are read. A low estimate grows to the rows read. Set
    /// it before `execute(_:)`, on the thread that configures the request.
    public var estimatedResultCount = 0

    /// Called on the reading thread with each count of rows read, after the progress was told
    /// (tests pause a read with it to act while it runs; a block here delays the read).
    var readObserver: (@Sendable (Int) -> Void)?

    /// `.fetchRequestType` (an asynchronous fetch is a fetch). Any thread that may read the
    /// request.
    public var requestType: PersistentStoreRequestType { .fetchRequestType }

    /// An asynchronous fetch of `fetchRequest` whose `completionBlock` runs on the context's
    /// queue. Callable from any thread; execute it on the context's queue.
    public init(fetchRequest: FetchRequest<ResultType>, completionBlock: ((AsynchronousFetchResult<ResultType>) -> Void)? = nil) {
        self.fetchRequest = fetchRequest
        self.completionBlock = completionBlock
    }
}

extension AsynchronousFetchRequest: ContextAsynchronousRequest {
    /// Makes the result (its progress a child of the thread's current `Progress`, if any),
    /// starts the fetch and returns the result. On the context's queue.
    func start(in context: ManagedObjectContext) -> PersistentStoreResult {
        let progress = Progress(totalUnitCount: -1)
        let job = BackgroundFetch(progress: progress, queue: context.queue, observer: readObserver)
        let result = AsynchronousFetchResult(request: self, context: context, progress: progress, job: job)
        let bound = ContextQueueBound(result, to: context)
        let resultType = fetchRequest.resultType
        if resultType == .dictionaryResultType || resultType == .countResultType {
            context.perform {
                let result = bound.value
                if job.isCancelled { return result.finish(.failure(ReadWatcher.cancellationError())) }
                result.finish(Result { try context.fetch(result.fetchRequest.fetchRequest) })
            }
            return result
        }
        let spec: BackgroundFetchSpec
        do {
            spec = try context.backgroundFetchSpec(fetchRequest, estimatedResultCount: estimatedResultCount)
        } catch {
            context.perform { bound.value.finish(.failure(error)) }
            return result
        }
        context.startBackgroundFetch(spec, job: job) { outcome in
            bound.value.finish(outcome.flatMap { results in Result { try ManagedObjectContext.typedResults(results, entity: spec.entity) } })
        }
        return result
    }
}
