/// A goal a benchmark, pair or relation must meet; printed as `met` or `MISSED`.
///
/// Ratio targets compare p50 values: strata ÷ raw for a pair, numerator ÷ denominator for a relation.
/// Absolute targets check the p50 of the benchmark (the Strata side of a pair, the numerator of a relation),
/// or its worst iteration (``worstIterationAtMost(_:metric:unit:)``).
public struct BenchmarkTarget: Sendable {
    /// The check a custom target runs on one benchmark's results.
    public typealias Check = @Sendable (BenchmarkResults) -> (met: Bool, detail: String)
    /// The check a custom comparison target runs on (strata, raw) or (numerator, denominator).
    public typealias ComparisonCheck = @Sendable (BenchmarkResults, BenchmarkResults) -> (met: Bool, detail: String)

    enum Kind: Sendable {
        case ratio(bound: Double, metric: BenchmarkMetric, atMost: Bool)
        case absolute(bound: Double, metric: BenchmarkMetric, unit: String, atMost: Bool, percentile: BenchmarkPercentile)
        case custom(description: String, check: Check)
        case customComparison(description: String, check: ComparisonCheck)
    }

    let kind: Kind

    /// The ratio (p50 of strata ÷ raw, or numerator ÷ denominator) of `metric` must be at most `r`.
    public static func ratioAtMost(_ r: Double, metric: BenchmarkMetric = .wallClock) -> BenchmarkTarget {
        BenchmarkTarget(kind: .ratio(bound: r, metric: metric, atMost: true))
    }

    /// The ratio of `metric` must be at least `r` (useful for throughput).
    public static func ratioAtLeast(_ r: Double, metric: BenchmarkMetric = .throughput) -> BenchmarkTarget {
        BenchmarkTarget(kind: .ratio(bound: r, metric: metric, atMost: false))
    }

    /// The p50 of `metric` must be at most `value` expressed in `unit` (e.g. `50, .wallClock, "ms"`;
    /// see ``MetricUnitKind/multiplier(forUnit:)`` for accepted units).
    public static func absoluteAtMost(_ value: Double, metric: BenchmarkMetric, unit: String) -> BenchmarkTarget {
        BenchmarkTarget(kind: .absolute(bound: value, metric: metric, unit: unit, atMost: true, percentile: .p50))
    }

    /// The worst measured iteration (p100) of `metric` must be at most `value` in `unit`, e.g. a
    /// memory bound that every iteration must keep, not just the median one.
    public static func worstIterationAtMost(_ value: Double, metric: BenchmarkMetric, unit: String) -> BenchmarkTarget {
        BenchmarkTarget(kind: .absolute(bound: value, metric: metric, unit: unit, atMost: true, percentile: .p100))
    }

    /// The p50 of `metric` must be at least `value` expressed in `unit` (e.g. `10, .throughput, "K/s"`).
    public static func absoluteAtLeast(_ value: Double, metric: BenchmarkMetric, unit: String) -> BenchmarkTarget {
        BenchmarkTarget(kind: .absolute(bound: value, metric: metric, unit: unit, atMost: false, percentile: .p50))
    }

    /// A target checked by `check` on the benchmark's results (the Strata side of a pair,
    /// the numerator of a relation).
    public static func custom(_ description: String, _ check: @escaping Check) -> BenchmarkTarget {
        BenchmarkTarget(kind: .custom(description: description, check: check))
    }

    /// A target checked by `check` on both results: (strata, raw) for a pair, (numerator, denominator)
    /// for a relation. Missed when used on a standalone benchmark.
    public static func customComparison(_ description: String, _ check: @escaping ComparisonCheck) -> BenchmarkTarget {
        BenchmarkTarget(kind: .customComparison(description: description, check: check))
    }

    /// What the target demands, e.g. `wall clock ratio ≤ 1.50×`.
    public var description: String {
        switch kind {
        case .ratio(let bound, let metric, let atMost):
            return "\(metric.displayName.lowercased()) ratio \(atMost ? "≤" : "≥") \(ValueFormatter.ratio(bound))"
        case .absolute(let bound, let metric, let unit, let atMost, let percentile):
            let number = bound == bound.rounded() && abs(bound) < 1e15 ? String(Int64(bound)) : String(bound)
            let value = unit.isEmpty ? number : "\(number) \(unit)"
            let which = percentile == .p100 ? "worst iteration" : percentile.rawValue
            return "\(metric.displayName.lowercased()) \(which) \(atMost ? "≤" : "≥") \(value)"
        case .custom(let description, _), .customComparison(let description, _):
            return description
        }
    }
}
