/// The measured results of one benchmark (a standalone benchmark or one side of a pair).
public struct BenchmarkResults: Codable, Sendable, Equatable {
    /// The benchmark's full name.
    public var name: String
    /// The pair this benchmark belongs to, if any.
    public var pairName: String?
    /// The side of the pair, if any.
    public var pairSide: PairSide?
    /// Number of measured iterations.
    public var iterations: Int
    /// Number of warm-up iterations that ran before measuring.
    public var warmupIterations: Int
    /// Units of work per iteration.
    public var scalingFactor: Int
    /// Statistics per measured metric.
    public var statistics: [BenchmarkMetric: MetricStatistics]
    /// Requested metrics that could not be measured, with the reason.
    public var unavailableMetrics: [BenchmarkMetric: String]

    /// Creates results (the runner does this; public for synthetic results in tests and tools).
    public init(
        name: String,
        pairName: String? = nil,
        pairSide: PairSide? = nil,
        iterations: Int,
        warmupIterations: Int = 0,
        scalingFactor: Int = 1,
        statistics: [BenchmarkMetric: MetricStatistics],
        unavailableMetrics: [BenchmarkMetric: String] = [:]
    ) {
        self.name = name
        self.pairName = pairName
        self.pairSide = pairSide
        self.iterations = iterations
        self.warmupIterations = warmupIterations
        self.scalingFactor = scalingFactor
        self.statistics = statistics
        self.unavailableMetrics = unavailableMetrics
    }

    /// The value of `percentile` for `metric`, or nil if the metric was not measured.
    public func value(_ metric: BenchmarkMetric, _ percentile: BenchmarkPercentile = .p50) -> Double? {
        statistics[metric]?.value(percentile)
    }

    /// The median of `metric`, or nil if it was not measured.
    public func p50(_ metric: BenchmarkMetric) -> Double? {
        statistics[metric]?.p50
    }

    /// The measured metrics in declaration order.
    public var measuredMetrics: [BenchmarkMetric] {
        BenchmarkMetric.allCases.filter { statistics[$0] != nil }
    }
}
