#if STRATA_TSAN
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// ThreadSanitizer builds only (`-D STRATA_TSAN`, set by `make stress-tsan`): this module's
/// `Mutex` is this lock instead of `Synchronization.Mutex`.
///
/// On Linux the standard library's `Mutex` locks with futexes inside the (uninstrumented)
/// standard library, so ThreadSanitizer sees no ordering between two critical sections and
/// reports every value a `Mutex` guards as a race. This lock has the same API over a pthread
/// mutex, which ThreadSanitizer intercepts. Normal builds never compile it.
final class Mutex<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is touched only between pthread_mutex_lock and _unlock.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Creates a lock guarding `initialValue`.
    init(_ initialValue: consuming sending Value) {
        value = initialValue
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the guarded value.
    func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
#endif
