import Foundation

/// A pointer-sized value per thread, set for the duration of a call: how a context tells the
/// coordinator, on the same thread, how to read (through a pinned generation, as a batch load).
/// Contexts call their parents on the calling thread, so a thread-local is exact there.
final class ThreadLocalSlot: Sendable {
    private let key: pthread_key_t

    /// Creates a slot (one pthread key, kept for the life of the process).
    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The current thread's value (nil outside ``with(_:_:)``).
    var value: UnsafeMutableRawPointer? { pthread_getspecific(key) }

    /// Runs `body` with the current thread's value set to `value`, then restores the previous one.
    func with<T>(_ value: UnsafeRawPointer?, _ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, value)
        defer { pthread_setspecific(key, previous) }
        return try body()
    }
}
