import Foundation

/// How a metric's p50 moved relative to the baseline.
public enum ComparisonVerdict: String, Codable, Sendable {
    /// Within the tolerances.
    case equal
    /// Worse by more than the tolerances.
    case regression
    /// Better by more than the tolerances.
    case improvement
}

/// The change of one metric of one benchmark relative to the baseline.
public struct BaselineDelta: Codable, Sendable, Equatable {
    /// The benchmark's name.
    public var benchmark: String
    /// The compared metric.
    public var metric: BenchmarkMetric
    /// The baseline's p50 (base units).
    public var baseline: Double
    /// This run's p50 (base units).
    public var current: Double
    /// (current − baseline) ÷ baseline; nil when the baseline is 0.
    public var relativeChange: Double?
    /// The relative tolerance applied.
    public var threshold: Double
    /// The absolute tolerance applied (base units).
    public var absoluteThreshold: Double
    /// The verdict.
    public var verdict: ComparisonVerdict

    /// Creates a delta.
    public init(
        benchmark: String, metric: BenchmarkMetric, baseline: Double, current: Double,
        relativeChange: Double?, threshold: Double, absoluteThreshold: Double, verdict: ComparisonVerdict
    ) {
        self.benchmark = benchmark
        self.metric = metric
        self.baseline = baseline
        self.current = current
        self.relativeChange = relativeChange
        self.threshold = threshold
        self.absoluteThreshold = absoluteThreshold
        self.verdict = verdict
    }
}

/// This run's p50 values compared with a stored baseline.
public struct BaselineComparison: Codable, Sendable, Equatable {
    /// The baseline's name.
    public var baselineName: String
    /// When the baseline was recorded.
    public var baselineCreatedAt: Date?
    /// One row per benchmark and metric present in both runs.
    public var deltas: [BaselineDelta]
    /// Benchmarks of this run that the baseline does not contain.
    public var newBenchmarks: [String]
    /// Caveats, e.g. a baseline recorded in a different mode.
    public var notes: [String]

    /// Creates a comparison from its parts.
    public init(baselineName: String, baselineCreatedAt: Date? = nil, deltas: [BaselineDelta], newBenchmarks: [String] = [], notes: [String] = []) {
        self.baselineName = baselineName
        self.baselineCreatedAt = baselineCreatedAt
        self.deltas = deltas
        self.newBenchmarks = newBenchmarks
        self.notes = notes
    }

    /// Rows that regressed.
    public var regressions: [BaselineDelta] { deltas.filter { $0.verdict == .regression } }
    /// Rows that improved.
    public var improvements: [BaselineDelta] { deltas.filter { $0.verdict == .improvement } }

    /// `.regression` if any row regressed, else `.improvement` if any improved, else `.equal`.
    public var verdict: ComparisonVerdict {
        if deltas.contains(where: { $0.verdict == .regression }) { return .regression }
        if deltas.contains(where: { $0.verdict == .improvement }) { return .improvement }
        return .equal
    }

    /// Compares the p50 of every metric of `current` with `baseline`, using each benchmark's
    /// tolerances from `configurations` (default tolerances for benchmarks not listed).
    public static func compare(
        current: BenchmarkRunReport,
        baseline: BenchmarkRunReport,
        baselineName: String,
        configurations: [String: BenchmarkConfiguration] = [:]
    ) -> BaselineComparison {
        var deltas: [BaselineDelta] = []
        var newBenchmarks: [String] = []
        for results in current.benchmarks {
            guard let reference = baseline.results(named: results.name) else {
                newBenchmarks.append(results.name)
                continue
            }
            let configuration = configurations[results.name] ?? BenchmarkConfiguration()
            for metric in results.measuredMetrics {
                guard let now = results.p50(metric), let then = reference.p50(metric) else { continue }
                let relative = configuration.threshold(for: metric)
                let absolute = configuration.absoluteThreshold(for: metric)
                let (verdict, change) = classify(metric: metric, baseline: then, current: now, threshold: relative, absoluteThreshold: absolute)
                deltas.append(
                    BaselineDelta(
                        benchmark: results.name, metric: metric, baseline: then, current: now,
                        relativeChange: change, threshold: relative, absoluteThreshold: absolute, verdict: verdict
                    ))
            }
        }
        var notes: [String] = []
        if baseline.quick != current.quick {
            notes.append("baseline was recorded \(baseline.quick ? "with" : "without") --quick, this run \(current.quick ? "with" : "without") it")
        }
        if baseline.environment.hostName != current.environment.hostName {
            notes.append("baseline was recorded on \(baseline.environment.hostName), this run on \(current.environment.hostName)")
        }
        return BaselineComparison(
            baselineName: baselineName, baselineCreatedAt: baseline.createdAt,
            deltas: deltas, newBenchmarks: newBenchmarks, notes: notes
        )
    }

    /// Classifies one change. A change is reported only when it exceeds both the relative `threshold`
    /// (fraction of the baseline) and the `absoluteThreshold` (base units); boundaries count as equal.
    public static func classify(
        metric: BenchmarkMetric, baseline: Double, current: Double, threshold: Double, absoluteThreshold: Double = 0
    ) -> (verdict: ComparisonVerdict, relativeChange: Double?) {
        let difference = current - baseline
        let change: Double? = baseline == 0 ? (current == 0 ? 0 : nil) : difference / abs(baseline)
        guard difference.isFinite, difference != 0, abs(difference) > absoluteThreshold else { return (.equal, change) }
        if let change, abs(change) <= threshold { return (.equal, change) }
        let worse = metric.higherIsBetter ? difference < 0 : difference > 0
        return (worse ? .regression : .improvement, change)
    }
}
