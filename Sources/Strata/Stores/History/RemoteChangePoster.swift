import Dispatch
import Foundation
import StrataLocks

/// Posts a store's remote-change notifications: one per new history transaction (or, without
/// history, one per observed change), in commit order, on a serial utility queue of its own, as
/// Core Data posts `.persistentStoreRemoteChange` on a background queue.
///
/// Two things wake it: ``signal()``, which the store calls after each transaction it commits,
/// and, for a store file, a timer on the same queue that reads a cheap change counter (SQLite's
/// `PRAGMA data_version` on a connection of its own) every ``probeInterval`` seconds, so another
/// process's commits are seen without any polling in the app's code. Either way it reads the
/// transactions after the last one it posted, so nothing is posted twice or skipped.
/// ``stop()`` (store closed or removed) cancels the timer and drops pending work; it never waits
/// for the queue, so it may be called from an observer of the notification itself.
final class RemoteChangePoster: @unchecked Sendable {
    // @unchecked Sendable: `lastNumber`, `lastMarker` and the sources' connection are touched
    // only on `queue`; `stopped` is guarded by `lock`; `timer` is a constant whose `cancel()`
    // is thread-safe.
    /// How often a file store checks for other processes' commits.
    static let probeInterval: TimeInterval = 0.05

    /// The reads the poster needs from its store, all run on its queue.
    struct Sources: @unchecked Sendable {
        // @unchecked Sendable: the closures are used on the poster's queue only.
        /// The number of the last transaction (`nil`: the store keeps no history).
        var lastTransaction: () throws -> Int64?
        /// The numbers of the transactions after the given one, in order (`nil`: the store keeps
        /// no history).
        var transactions: (Int64) throws -> [Int64]?
        /// A value that changes whenever someone commits (nil: only `signal()` wakes the poster).
        var changeMarker: (() throws -> Int64)?
    }

    private let queue: DispatchQueue
    private let sources: Sources
    private let post: @Sendable (Int64?) -> Void
    private var lastNumber: Int64 = 0
    private var lastMarker: Int64?
    private let stopped = StrataLock(false)
    private let timer: DispatchSourceTimer?

    /// Starts posting through `post` (called on the poster's queue with each new transaction's
    /// number, or nil for a change without history). Transactions committed before now are not
    /// posted.
    init(label: String, sources: Sources, post: @escaping @Sendable (Int64?) -> Void) throws {
        let queue = DispatchQueue(label: label, qos: .utility)
        self.queue = queue
        self.sources = sources
        self.post = post
        self.timer = sources.changeMarker == nil ? nil : DispatchSource.makeTimerSource(queue: queue)
        try queue.sync {
            lastNumber = try sources.lastTransaction() ?? 0
            lastMarker = try sources.changeMarker?()
        }
        guard let timer else { return }
        timer.schedule(deadline: .now() + Self.probeInterval, repeating: Self.probeInterval, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.probe() }
        timer.resume()
    }

    deinit { stop() }

    /// Called by the store after it committed a transaction: posts what is new, soon, on the
    /// poster's queue. Callable from any thread.
    func signal() {
        queue.async { [weak self] in self?.drain() }
    }

    /// Stops posting for good. Callable from any thread, including the poster's queue.
    func stop() {
        let wasStopped = stopped.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        if !wasStopped { timer?.cancel() }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// Timer tick: a changed marker means someone committed.
    private func probe() {
        guard !isStopped, let marker = try? sources.changeMarker?() else { return }
        guard marker != lastMarker else { return }
        lastMarker = marker
        drain()
    }

    /// Posts one notification per transaction after the last posted one; without history, one
    /// for the change.
    private func drain() {
        guard !isStopped else { return }
        if let marker = try? sources.changeMarker?() { lastMarker = marker }
        let found: [Int64]?
        do {
            found = try sources.transactions(lastNumber)
        } catch {
            return  // a busy or closed file: the next signal or tick tries again
        }
        guard let numbers = found else {
            post(nil)
            return
        }
        for number in numbers where number > lastNumber {
            guard !isStopped else { return }
            lastNumber = number
            post(number)
        }
    }
}
