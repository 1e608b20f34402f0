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
enum QueueOwnership {
    /// The contexts owned by one thread, innermost last.
    final class OwnedContexts {
        var tokens: [ObjectIdentifier] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<OwnedContexts>.fromOpaque(pointer).release()
        }
        return key
    }()

    private static var current: OwnedContexts {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<OwnedContexts>.fromOpaque(pointer).takeUnretainedValue()
        }
        let owned = OwnedContexts()
        pthread_setspecific(key, Unmanaged.passRetained(owned).toOpaque())
        return owned
    }

    /// Whether the current thread is running a block of the context identified by `token`.
    static func isOwned(_ token: ObjectIdentifier) -> Bool {
        guard let pointer = pthread_getspecific(key) else { return false }
        return Unmanaged<OwnedContexts>.fromOpaque(pointer).takeUnretainedValue().tokens.contains(token)
    }

    /// Runs `body` with the context identified by `token` marked as owned by this thread.
    @inline(__always)
    static func withOwnership<T>(of token: ObjectIdentifier, _ body: () throws -> T) rethrows -> T {
        let owned = current
        owned.tokens.append(token)
        defer { owned.tokens.removeLast() }
        return try body()
    }

    /// Number of contexts the current thread is inside (for diagnostics).
    static var depth: Int { current.tokens.count }
}
