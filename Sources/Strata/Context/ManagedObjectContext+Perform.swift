import Dispatch
import Foundation

/// Running blocks on the context's queue.
extension ManagedObjectContext {
    /// When an `async` `perform` block runs (Core Data's `ScheduledTaskType`).
    public enum ScheduledTaskType: Sendable {
        /// Run inline if already on the context's queue, else enqueue.
        case immediate
        /// Always enqueue behind the blocks already waiting.
        case enqueued
    }

    /// Runs `block` on the context's queue without waiting. Callable from any thread.
    ///
    /// For a `.mainQueue` context the block runs when the main thread services the main queue
    /// (`dispatchMain()`, `RunLoop.main.run()`); server programs and tests that never do should
    /// use private-queue contexts or pump `RunLoop.main`.
    public func perform(_ block: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            runOwned("perform", block)
        }
    }

    /// Runs `block` on the context's queue and waits for it, returning its result or rethrowing
    /// its error. Re-entrant: called from a block already running for this context (even
    /// through a chain of waits on other contexts), it runs inline. Callable from any thread;
    /// waits only go up a context tree (a child may wait for its parent, never the reverse).
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue {
            return try QueueOwnership.withOwnership(of: ownershipToken) {
                try StrataTrace.onTrack(traceTrack, named: traceTrackName, span: "performAndWait (inline)", block)
            }
        }
        // The block may run on another thread (a main-queue block while the main thread runs
        // RunLoop.main): that thread borrows this one's contexts while this one waits.
        let loan = QueueOwnership.loan()
        return try queue.sync {
            try QueueOwnership.borrowing(loan) { try runOwned("performAndWait", block) }
        }
    }

    /// Runs `block` on the context's queue and returns its result to the awaiting task.
    /// Callable from any task.
    public func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () throws -> T) async throws -> T {
        if schedule == .immediate && isOnQueue {
            return try QueueOwnership.withOwnership(of: ownershipToken) { try block() }
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { [self] in
                do {
                    continuation.resume(returning: try runOwned("perform (async)", block))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Runs a non-throwing `block` on the context's queue and returns its result.
    public func perform<T: Sendable>(schedule: ScheduledTaskType = .immediate, _ block: @escaping @Sendable () -> T) async -> T {
        if schedule == .immediate && isOnQueue {
            return QueueOwnership.withOwnership(of: ownershipToken) { block() }
        }
        return await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: runOwned("perform (async)", block))
            }
        }
    }

    /// Runs a block as the context's owner, then ends the "event" (pending-change processing);
    /// in a ``StrataTrace`` recording, a span named `spanName` on the context's track.
    private func runOwned<T>(_ spanName: StaticString, _ block: () throws -> T) rethrows -> T {
        try QueueOwnership.withOwnership(of: ownershipToken) {
            try StrataTrace.onTrack(traceTrack, named: traceTrackName, span: spanName) {
                defer { endOfEvent() }
                return try block()
            }
        }
    }

    /// Work done at the end of each block that ran on the context's queue (not for blocks run
    /// inline by a re-entrant `performAndWait`): objects-did-change; the objects a merge in the
    /// block inserted are no longer held.
    func endOfEvent() {
        if !state.eventObjects.isEmpty {
            processPendingChanges()
        } else if let undoManager = state.undoManager {
            undoManager.contextDidEndEvent()
        }
        if !state.mergedInsertions.isEmpty { state.mergedInsertions = [] }
    }
}
