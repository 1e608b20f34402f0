#if !STRATA_TSAN
import Synchronization

/// The lock every Strata module uses to guard shared mutable state: a value reachable only
/// inside `withLock(_:)`, which runs its closure with exclusive access. Usable from any thread;
/// not re-entrant (calling `withLock` again on the same lock inside the closure deadlocks).
///
/// In normal builds it is the standard library's `Synchronization.Mutex`, at no cost. In
/// ThreadSanitizer builds (`-D STRATA_TSAN`, set by `make stress-tsan`) it is a pthread mutex
/// with the same API instead: on Linux `Synchronization.Mutex` locks with futexes inside the
/// uninstrumented standard library, so ThreadSanitizer would see no ordering between two
/// critical sections and report every guarded value as a race. Use it, never `Mutex` directly,
/// so that both builds lock the same way. Declared once here, in its own module below every other, and
/// shared with `package` access by every module and test target of the package.
package typealias StrataLock<Value: ~Copyable> = Mutex<Value>
#else
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ThreadSanitizer builds only (`-D STRATA_TSAN`, set by `make stress-tsan`): the lock every
/// Strata module uses, with `Synchronization.Mutex`'s API over a pthread mutex, which
/// ThreadSanitizer intercepts. Usable from any thread; not re-entrant. See the normal build's
/// declaration above for why it exists.
package final class StrataLock<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is touched only between pthread_mutex_lock and _unlock.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Creates a lock guarding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        value = initialValue
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the guarded value.
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
