/// The verdict on one ``BenchmarkTarget``.
public struct TargetOutcome: Codable, Sendable, Equatable {
    /// Whether the target was met.
    public enum Status: String, Codable, Sendable {
        /// The target holds.
        case met
        /// The target does not hold (or could not be evaluated on the available numbers).
        case missed
        /// The target was not evaluated (its benchmarks were filtered out or failed).
        case skipped
    }

    /// Name of the benchmark, pair or relation the target belongs to.
    public var subject: String
    /// What the target demands, e.g. `wall clock ratio ≤ 1.50×`.
    public var description: String
    /// The verdict.
    public var status: Status
    /// The numbers behind the verdict.
    public var detail: String

    /// Creates an outcome.
    public init(subject: String, description: String, status: Status, detail: String) {
        self.subject = subject
        self.description = description
        self.status = status
        self.detail = detail
    }

    /// The word printed for the status: `met`, `MISSED` or `skipped`.
    public var statusLabel: String {
        switch status {
        case .met: "met"
        case .missed: "MISSED"
        case .skipped: "skipped"
        }
    }
}

/// A benchmark (or its set-up / tear-down) that threw.
public struct BenchmarkFailure: Codable, Sendable, Equatable {
    /// The benchmark's name.
    public var benchmark: String
    /// What went wrong.
    public var message: String

    /// Creates a failure record.
    public init(benchmark: String, message: String) {
        self.benchmark = benchmark
        self.message = message
    }
}
