import Foundation
import StrataLocks
import StrataSQLite
import Synchronization

/// Runs closures on explicit threads (not Dispatch's pool, which on two cores often runs
/// blocks one after another and hides races) and waits for them with a bound, so a deadlock
/// fails the test instead of hanging it.
public enum ThreadRunner {
    /// What happened to a group of threads.
    public struct Outcome: Sendable {
        /// Whether every thread finished before the deadline.
        public let finished: Bool
        /// Errors thrown by the closures, in thread order.
        public let errors: [String]
    }

    /// Starts `count` threads running `body(index)` and waits up to `timeout` seconds for all.
    public static func run(count: Int, timeout: TimeInterval, _ body: @escaping @Sendable (Int) throws -> Void) -> Outcome {
        let done = DispatchSemaphore(value: 0)
        let errors = StrataLock<[String]>([])
        for index in 0..<count {
            let thread = Thread {
                do {
                    try body(index)
                } catch {
                    errors.withLock { $0.append("thread \(index): \(error)") }
                }
                done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        let deadline = DispatchTime.now() + timeout
        for _ in 0..<count {
            if done.wait(timeout: deadline) == .timedOut {
                return Outcome(finished: false, errors: errors.withLock { $0 })
            }
        }
        return Outcome(finished: true, errors: errors.withLock { $0 })
    }
}

/// A thread-safe flag and counter for tests.
public final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Creates a counter at zero.
    public init() {}

    /// Adds `amount`; returns the new value.
    @discardableResult
    public func add(_ amount: Int = 1) -> Int { value.wrappingAdd(amount, ordering: .relaxed).newValue }

    /// The current value.
    public var current: Int { value.load(ordering: .relaxed) }
}
