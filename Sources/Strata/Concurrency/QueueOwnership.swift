import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks, per thread, which contexts' queues the thread is currently running blocks for.
///
/// This is Strata's one queue-confinement mechanism. `perform`/`performAndWait` mark the
/// context as owned by the running thread for the duration of the block; every context API and
/// every object accessor asks `isOwned` (in concurrency debug mode) to decide whether the caller
/// may touch the context. It also makes `performAndWait` re-entrant across chains: when a
/// thread inside context A's block waits synchronously on context B, and B's block calls
/// `A.performAndWait`, the call runs inline because the thread still owns A.
///
/// A synchronous wait usually runs the block on the waiting thread, but not always: a
/// main-queue block waited for while the main thread runs `RunLoop.main` runs on the main
/// thread. The waiting thread then lends its contexts to the thread running the block for it
/// (see ``Loan``), so a chain through a main-queue parent re-enters the child inline too.
enum QueueOwnership {
    /// The contexts owned by one thread, innermost last.
    final class OwnedContexts {
        var tokens: [ObjectIdentifier] = []
        /// Contexts lent by threads that wait synchronously for a block this thread runs.
        var borrowed: [ObjectIdentifier] = []
    }

    /// The contexts a thread owns when it starts a synchronous wait, lent to the thread that
    /// runs the awaited block while the lender is blocked (so the two never use them at once).
    struct Loan {
        let thread: pthread_t
        let tokens: [ObjectIdentifier]
    }

    /// What the current thread lends to a block it is about to wait for.
    static func loan() -> Loan {
        // Nothing owned (the usual outermost wait): an empty loan, without the allocation that
        // `+` makes when it copies the emptied `tokens` array's storage.
        guard let owned = perThread.existing, !owned.tokens.isEmpty || !owned.borrowed.isEmpty else {
            return Loan(thread: pthread_self(), tokens: [])
        }
        return Loan(thread: pthread_self(), tokens: owned.tokens + owned.borrowed)
    }

    /// Runs `body` (the awaited block) with the lender's contexts owned too when it runs on
    /// another thread than the lender's.
    static func borrowing<T>(_ loan: Loan, _ body: () throws -> T) rethrows -> T {
        if loan.tokens.isEmpty || pthread_equal(loan.thread, pthread_self()) != 0 { return try body() }
        let owned = current
        let count = owned.borrowed.count
        owned.borrowed += loan.tokens
        defer { owned.borrowed.removeSubrange(count...) }
        return try body()
    }

    private static let perThread = ThreadLocal { OwnedContexts() }

    private static var current: OwnedContexts { perThread.current }

    /// Whether the current thread is running a block of the context identified by `token`.
    static func isOwned(_ token: ObjectIdentifier) -> Bool {
        guard let owned = perThread.existing else { return false }
        return owned.tokens.contains(token) || owned.borrowed.contains(token)
    }

    /// Runs `body` with the context identified by `token` marked as owned by this thread.
    @inline(__always)
    static func withOwnership<T>(of token: ObjectIdentifier, _ body: () throws -> T) rethrows -> T {
        let owned = current
        owned.tokens.append(token)
        defer { owned.tokens.removeLast() }
        return try body()
    }

    /// Number of context blocks the current thread runs itself (borrowed ones excluded).
    static var depth: Int { current.tokens.count }
}
