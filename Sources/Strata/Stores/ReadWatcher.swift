import Foundation
import Synchronization

/// Follows one long read row by row, for an asynchronous fetch (``ReadOptions/watcher``).
///
/// A store reading the rows (or IDs) of a fetch whose options carry a watcher calls
/// ``rowsRead(_:)`` every ``reportInterval`` rows and ``finished(_:)`` once the last row is
/// read. Both throw the cancellation error (code 3072, Cocoa's `NSUserCancelledError`) once
/// ``cancel()`` was called, so a cancelled read stops within ``reportInterval`` rows, gives its
/// connection back and caches nothing. A store that gets all rows at once (the in-memory
/// store, stores written against the public seam) calls `rowsRead(0)` before and
/// `finished(_:)` after. Thread-safe: the read calls it on its own thread while any thread
/// may cancel.
final class ReadWatcher: Sendable {
    /// How many rows a store reads between two reports (and cancellation checks).
    static let reportInterval = 4096

    private let cancelled = Atomic<Bool>(false)
    private let reported = Atomic<Int>(0)
    private let onRows: @Sendable (Int) -> Void

    /// A watcher that hands the number of rows read so far to `onRows` (on the reading thread).
    init(onRows: @escaping @Sendable (Int) -> Void) {
        self.onRows = onRows
    }

    /// The rows the read reported so far (from any thread; tests watch a read with it).
    var rowsReported: Int { reported.load(ordering: .acquiring) }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the read at its next report. Callable from any thread, any number of times.
    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Reports `count` rows read so far; throws the cancellation error when cancelled.
    func rowsRead(_ count: Int) throws {
        if isCancelled { throw Self.cancellationError() }
        reported.store(count, ordering: .releasing)
        onRows(count)
    }

    /// Reports that the read ended after `count` rows; throws the cancellation error when
    /// cancelled (the rows are then dropped).
    func finished(_ count: Int) throws {
        if isCancelled { throw Self.cancellationError() }
        reported.store(count, ordering: .releasing)
        onRows(count)
    }

    /// The error a cancelled asynchronous fetch reports (3072, Cocoa's `NSUserCancelledError`).
    static func cancellationError() -> StrataError {
        StrataError(code: StrataError.Code.userCancelled, message: "The asynchronous fetch was cancelled")
    }
}
