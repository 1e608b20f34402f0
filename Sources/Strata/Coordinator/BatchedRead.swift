import Foundation

/// Marks the current thread as loading a batch of a batched walk (`fetchBatchSize`): the rows it
/// reads are not added to the row cache. A walk reads each row once and releases it a batch
/// later, so caching would only add a table entry per row and a purge behind the reader; the
/// cache still serves the walk rows other contexts cached. A thread-local, like
/// ``CurrentGeneration``: contexts call their parents on the calling thread. Where a call hops to
/// another thread (a main-queue parent), the rows are simply cached.
enum BatchedRead {
    private static let slot = ThreadLocalSlot()

    /// Whether the current thread is loading a batch.
    static var isActive: Bool { slot.value != nil }

    /// Runs `body` as a batch load.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        try slot.with(UnsafeRawPointer(bitPattern: 1), body)
    }
}
