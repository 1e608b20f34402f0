import Foundation
import Strata
import StrataLocks
import StrataSQLite
import StrataTestSupport

/// What a stress run counts and the problems it found. Thread-safe.
public final class StressCounters: Sendable {
    /// Workload operations finished (any kind).
    public let operations = AtomicCounter()
    /// Transfers saved into a parent context or the store (not all reach the store: a parent
    /// that cannot save rolls them back).
    public let transfers = AtomicCounter()
    /// Accounts opened and closed (saved one level up).
    public let opened = AtomicCounter()
    /// See ``opened``.
    public let closed = AtomicCounter()
    /// Optimistic-locking conflicts (133020) answered by refreshing and retrying.
    public let conflicts = AtomicCounter()
    /// Uniqueness-constraint conflicts (133021) answered by retrying with another number.
    public let constraintConflicts = AtomicCounter()
    /// Transfers given up after too many conflicts.
    public let givenUp = AtomicCounter()
    /// Parent contexts rolled back because their save conflicted (their children's work is lost,
    /// atomically).
    public let parentRollbacks = AtomicCounter()
    /// Saves of root contexts that reached the store.
    public let rootSaves = AtomicCounter()
    /// Merges, resets and refreshes done by the workload.
    public let merges = AtomicCounter()
    /// See ``merges``.
    public let resets = AtomicCounter()
    /// Reads of a pinned query generation that were checked for a consistent total.
    public let pinnedAudits = AtomicCounter()
    /// Pinned audits whose total was wrong.
    public let pinnedAuditFailures = AtomicCounter()
    /// Invariant checks run after root saves (quick ones, and full ones).
    public let checks = AtomicCounter()
    /// See ``checks``.
    public let fullChecks = AtomicCounter()
    /// Batch requests (inserts, deletes and updates) that ran, and the rows they touched.
    public let batchRequests = AtomicCounter()
    /// See ``batchRequests``.
    public let batchRows = AtomicCounter()
    /// Accounts seen with a negative balance in any context.
    public let negativeSightings = AtomicCounter()
    private let problems = StrataLock<[String]>([])
    private let problemCount = AtomicCounter()

    /// Creates zeroed counters.
    public init() {}

    /// Records a failure (the first 20 are kept verbatim).
    public func fail(_ message: String) {
        if problemCount.add() <= 20 { problems.withLock { $0.append(message) } }
    }

    /// The failures recorded, the first 20 verbatim.
    public var failures: [String] { problems.withLock { $0 } }
    /// How many failures were recorded.
    public var failureCount: Int { problemCount.current }

    /// Classifies an error thrown by a save: conflicts are counted (and expected); anything
    /// else is a failure. Returns whether it was a conflict.
    @discardableResult
    public func absorb(_ error: any Error, during what: String) -> Bool {
        if let error = error as? StrataError {
            if error.code == StrataError.Code.managedObjectMerge {
                conflicts.add()
                return true
            }
            if error.code == StrataError.Code.managedObjectConstraintMerge {
                constraintConflicts.add()
                return true
            }
        }
        fail("\(what): unexpected error \(error)")
        return false
    }
}
