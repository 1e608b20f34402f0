#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One instance of a class per thread: made on a thread's first ``current``, released when the
/// thread ends. The thread-local state of queue ownership (Sources/Strata/Concurrency/QueueOwnership.swift)
/// and of the trace (Sources/Strata/Support/Trace/TraceTrack.swift) live in one each.
///
/// The container is `Sendable` (keep it in a `static let`); the per-thread instances are not
/// shared: each thread reads and writes only its own.
final class ThreadLocal<Value: AnyObject>: Sendable {
    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    /// A container whose per-thread instance `make` creates.
    init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        self.key = key
        self.make = make
    }

    /// The calling thread's instance, if it has made one.
    @inline(__always)
    var existing: Value? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The calling thread's instance, made now if it has none.
    @inline(__always)
    var current: Value {
        if let value = existing { return value }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value as AnyObject).toOpaque())
        return value
    }
}
