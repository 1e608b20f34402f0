import Foundation

/// The concurrency debug mode (`STRATA_CONCURRENCY_DEBUG=1`): Core Data's ConcurrencyDebug.
///
/// When enabled, every context API and every managed-object accessor checks that the calling
/// thread is running one of the context's blocks (or, for a main-queue context, is the main
/// thread) and traps otherwise, printing the context, the call and the thread. This is the only
/// place where Strata traps on purpose.
enum ConcurrencyDebug {
    /// Whether the checks are on.
    static var isEnabled: Bool { DebugSettings.concurrencyChecks }

    /// Traps with a clear message: a context or one of its objects was used off its queue.
    static func reportViolation(contextDescription: String, call: StaticString) -> Never {
        let thread = Thread.isMainThread ? "the main thread" : "a thread that is not running one of its blocks"
        let message = """
            Strata concurrency violation: \(call) was called on \(contextDescription) from \(thread). \
            A context and its objects may only be used inside perform/performAndWait on that context \
            (main-queue contexts also on the main thread). Pass ManagedObjectIDs between queues instead.
            """
        writeToStandardError(message)
        preconditionFailure(message)
    }
}
