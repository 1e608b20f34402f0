import Foundation

/// What one worker thread of the large mode measured, counted and found; kept by the thread
/// alone and merged at the end.
public struct WorkerTally: Sendable {
    /// Latencies by operation name.
    public var stats: [String: LatencyStats] = [:]
    /// Counts by name ("merges processed", "rows checked against a merged version"…).
    public var counts: [String: Int] = [:]
    /// Invariant violations, by invariant (the first few kept verbatim in ``problems``).
    public var violations: [LargeInvariant: Int] = [:]
    /// The first problems found, verbatim.
    public var problems: [String] = []

    /// Creates an empty tally.
    public init() {}

    /// Adds `amount` to the count `name`.
    public mutating func count(_ name: String, _ amount: Int = 1) {
        counts[name, default: 0] += amount
    }

    /// Records a violation of `invariant`, keeping the first 20 messages.
    public mutating func violate(_ invariant: LargeInvariant, _ message: String) {
        violations[invariant, default: 0] += 1
        if problems.count < 20 { problems.append("\(invariant.rawValue): \(message)") }
    }

    /// Adds everything `other` holds.
    public mutating func merge(_ other: WorkerTally) {
        for (name, stats) in other.stats { self.stats[name, default: LatencyStats()].merge(stats) }
        for (name, count) in other.counts { counts[name, default: 0] += count }
        for (invariant, count) in other.violations { violations[invariant, default: 0] += count }
        for problem in other.problems where problems.count < 20 { problems.append(problem) }
    }
}

/// The invariants the readers check row by row.
public enum LargeInvariant: String, Sendable, CaseIterable {
    /// A page, range or batch held a row with another key than its position calls for, or the
    /// wrong number of rows.
    case order = "rows in order"
    /// A row's name or score is not the one its key was built with.
    case content = "row contents"
    /// A row read after a merge held a version lower than the one merged.
    case stale = "no stale row after a merge"
    /// A batched walk kept batches it should have released, or loaded the wrong number.
    case batches = "batched walk releases its batches"
}
