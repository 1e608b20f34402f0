import Dispatch
import Foundation

/// Fetching from Swift concurrency: the asynchronous fetch (the store rows read off the
/// context's queue, on a reader connection) awaited by a task.
///
/// Managed objects are not `Sendable` and never leave their context's queue, so no form returns
/// objects to the awaiting task: ``fetchObjectIDs(_:estimatedResultCount:)`` returns IDs
/// (`Sendable`; open them later with `object(with:)` in a `perform` block), and
/// ``fetch(_:estimatedResultCount:then:)`` runs a closure with the objects on the context's
/// queue and returns what it returns (which must be `Sendable`).
extension ManagedObjectContext {
    /// Fetches the IDs of the objects `request` matches, reading the store off the context's
    /// queue, and returns them to the awaiting task. The IDs are those `fetch(_:)` with
    /// `resultType = .managedObjectIDResultType` would give: predicate, sort, limit and offset
    /// apply, and with `includesPendingChanges` (the default) the context's unsaved changes
    /// count (merged on the context's queue when the read is back). The request's
    /// `resultType` is ignored unless it asks for dictionaries or counts, which throw.
    ///
    /// Cancelling the awaiting task cancels the fetch: the read stops and the call throws
    /// `CancellationError`. Throws for an unknown entity or key, a malformed predicate, or a
    /// store failure. Callable from any task (the awaiting task holds no queue: on the main
    /// actor, awaiting frees the main queue a main-queue context completes on).
    /// `estimatedResultCount`, when positive, saves the count query that otherwise sizes the
    /// fetch's progress.
    public func fetchObjectIDs<T>(_ request: FetchRequest<T>, estimatedResultCount: Int = 0) async throws -> [ManagedObjectID] {
        let spec = try backgroundFetchSpec(request, output: .objectIDs, estimatedResultCount: estimatedResultCount)
        return try await awaitBackgroundFetch(spec) { results in
            switch results {
            case .objectIDs(let ids): return ids
            case .objects(let objects): return objects.map(\.objectID)
            }
        }
    }

    /// Fetches what `request` matches, reading the store off the context's queue, then runs
    /// `body` on the context's queue with the results registered in the context (as
    /// `fetch(_:)` returns them: objects, or IDs for `.managedObjectIDResultType`; unsaved
    /// changes count with `includesPendingChanges`), and returns `body`'s result to the
    /// awaiting task. The objects are valid inside `body` only: return IDs or values, never
    /// objects.
    ///
    /// ```swift
    /// let names = try await context.fetch(request) { (people: [Person]) in people.map(\.name) }
    /// ```
    ///
    /// Cancelling the awaiting task cancels the fetch (nothing is registered; `body` does not
    /// run) and the call throws `CancellationError`. Throws for an unknown entity or key, a
    /// malformed predicate, a dictionary or count request, a store failure, or what `body`
    /// throws. Callable from any task; `body` runs on the context's queue.
    public func fetch<T, R: Sendable>(
        _ request: FetchRequest<T>, estimatedResultCount: Int = 0, then body: @escaping @Sendable ([T]) throws -> R
    ) async throws -> R {
        let spec = try backgroundFetchSpec(request, estimatedResultCount: estimatedResultCount)
        return try await awaitBackgroundFetch(spec) { results in
            try body(try Self.typedResults(results, entity: spec.entity))
        }
    }

    /// Runs the asynchronous fetch `spec` describes and returns what `finish` makes of its
    /// results on the context's queue; task cancellation cancels the fetch.
    private func awaitBackgroundFetch<R: Sendable>(
        _ spec: BackgroundFetchSpec, finish: @escaping @Sendable (BackgroundFetchResults) throws -> R
    ) async throws -> R {
        let job = BackgroundFetch(progress: Progress.discreteProgress(totalUnitCount: -1), queue: queue)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                perform { [self] in
                    startBackgroundFetch(spec, job: job) { outcome in
                        do {
                            continuation.resume(returning: try finish(outcome.get()))
                        } catch let error as StrataError where error.code == StrataError.Code.userCancelled {
                            continuation.resume(throwing: CancellationError())
                        } catch {
                            continuation.resume(throwing: error)
                        }
                    }
                }
            }
        } onCancel: {
            job.cancel()
        }
    }
}
