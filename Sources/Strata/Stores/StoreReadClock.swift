/// When the store read now running on this thread began: the read time
/// ``IncrementalStoreNode``s made during it carry (`RowSnapshot.fetchedAt`).
///
/// A row's read time must not be later than the read: the row cache refuses a row read before
/// a save's floor (`Coordinator/RowCache.swift`), and a node stamped when it was made, after
/// the server answered, could pass for a row read after a save that landed in between. The
/// SQLite store stamps its rows with the time its query began; `IncrementalStoreBackend` marks
/// the calls into a store of the public seam with ``reading(_:)``, and a node made on this
/// thread inside one takes that time. A node made elsewhere (another thread, a save) takes the
/// time it is made. Thread-local (`Support/ThreadLocal.swift`): no lock, no clock read per node.
enum StoreReadClock {
    /// A thread's read start, nil outside a read.
    private final class State {
        var readStartedAt: UInt64?
    }

    private static let perThread = ThreadLocal { State() }

    /// Runs `body` (a call into a store) marked as a read that begins now; reads nest (the inner
    /// one's time holds inside it, the outer one's again after it).
    static func reading<T>(_ body: () throws -> T) rethrows -> T {
        let state = perThread.current
        let previous = state.readStartedAt
        state.readStartedAt = RowSnapshot.now()
        defer { state.readStartedAt = previous }
        return try body()
    }

    /// The read time of a row made now on this thread: the running read's start, else now.
    @inline(__always)
    static var rowReadTime: UInt64 { readStartedAt ?? RowSnapshot.now() }

    /// The start of the read running on this thread, or nil outside one.
    @inline(__always)
    static var readStartedAt: UInt64? { perThread.existing?.readStartedAt }
}
