import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// When the store read now running on this thread began: the read time
/// ``IncrementalStoreNode``s made during it carry (`RowSnapshot.fetchedAt`).
///
/// A row's read time must not be later than the read: the row cache refuses a row read before
/// a save's floor (`Coordinator/RowCache.swift`), and a node stamped when it was made, after
/// the server answered, could pass for a row read after a save that landed in between. The
/// SQLite store stamps its rows with the time its query began; `IncrementalStoreBackend` marks
/// the calls into a store of the public seam with ``reading(_:)``, and a node made on this
/// thread inside one takes that time. A node made elsewhere (another thread, a save) takes the
/// time it is made. One thread-local word: no lock, no clock read per node.
enum StoreReadClock {
    /// The thread-local slot holding the read's start (`RowSnapshot.now()`, never 0 once the
    /// machine is up), or nil outside a read.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` (a call into a store) marked as a read that begins now; reads nest (the inner
    /// one's time holds inside it, the outer one's again after it).
    static func reading<T>(_ body: () throws -> T) rethrows -> T {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(RowSnapshot.now())))
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// The start of the read running on this thread, or nil outside one.
    @inline(__always)
    static var readStartedAt: UInt64? {
        pthread_getspecific(key).map { UInt64(UInt(bitPattern: $0)) }
    }
}
