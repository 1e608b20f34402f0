import Foundation

/// The outcome of a stress run: figures, and each invariant with OK or FAIL.
public struct StressReport: Sendable {
    /// One checked invariant.
    public struct Invariant: Sendable {
        /// What was checked.
        public var name: String
        /// Whether it held.
        public var passed: Bool
        /// Figures or the first problems found.
        public var detail: String
    }

    /// The seed the run used.
    public var seed: UInt64
    /// Seconds the workload ran.
    public var elapsed: Double = 0
    /// Workload operations finished.
    public var operations = 0
    /// Figure lines (throughput, conflicts, saves…).
    public var figures: [String] = []
    /// The invariants, in the order checked.
    public var invariants: [Invariant] = []
    /// Problems recorded during the run (the first ones verbatim).
    public var failures: [String] = []

    /// Creates an empty report for `seed`.
    public init(seed: UInt64) { self.seed = seed }

    /// Operations per second.
    public var operationsPerSecond: Double { elapsed > 0 ? Double(operations) / elapsed : 0 }

    /// Whether every invariant held.
    public var passed: Bool { invariants.allSatisfy(\.passed) && !invariants.isEmpty }

    /// Adds an invariant line from a list of problems.
    public mutating func check(_ name: String, problems: [String], figures: String = "") {
        let detail = problems.isEmpty ? figures : problems.prefix(5).joined(separator: "; ") + (problems.count > 5 ? " (+\(problems.count - 5) more)" : "")
        invariants.append(Invariant(name: name, passed: problems.isEmpty, detail: detail))
    }

    /// The report as printed by `make stress`.
    public var text: String {
        var lines = ["seed: \(seed)"]
        lines.append(String(format: "operations: %d in %.1f s = %.0f ops/s", operations, elapsed, operationsPerSecond))
        lines += figures.map { "  " + $0 }
        lines.append("invariants:")
        for invariant in invariants {
            lines.append("  [\(invariant.passed ? "OK" : "FAIL")] \(invariant.name)\(invariant.detail.isEmpty ? "" : " — \(invariant.detail)")")
        }
        if !failures.isEmpty {
            lines.append("problems recorded during the run:")
            lines += failures.map { "  " + $0 }
        }
        lines.append("result: \(passed ? "PASS" : "FAIL") (seed \(seed))")
        return lines.joined(separator: "\n")
    }
}
