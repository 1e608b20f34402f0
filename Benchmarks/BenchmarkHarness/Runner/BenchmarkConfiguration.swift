/// How one benchmark (or both sides of a pair) is run, measured and compared against a baseline.
public struct BenchmarkConfiguration: Sendable {
    /// Iterations run before measuring; their results are discarded.
    public var warmupIterations: Int
    /// Measured iterations that always run, whatever the time budget (pairs run at least
    /// ``PairRunner/minimumSamples`` per side in any case).
    public var minIterations: Int
    /// Upper bound on measured iterations in a full run (raised to `minIterations` when lower).
    public var maxIterations: Int
    /// Upper bound on the time spent in measured iterations once `minIterations` ran (for a pair,
    /// per side: the interleaved loop of both sides gets twice this).
    public var maxDuration: Duration
    /// Units of work done per iteration; throughput = scalingFactor ÷ wall-clock seconds.
    public var scalingFactor: Int
    /// Upper bound on measured iterations with `--quick` (raised to `minIterations` when lower).
    public var quickMaxIterations: Int
    /// Upper bound on warm-up iterations with `--quick` (never more than `warmupIterations`).
    public var quickWarmupIterations: Int
    /// Upper bound on the time spent in measured iterations with `--quick` (never more than `maxDuration`).
    public var quickMaxDuration: Duration
    /// The metrics to measure and report.
    public var metrics: [BenchmarkMetric]
    /// Relative tolerance per metric for baseline comparison (0.25 = ±25 % of the baseline's p50).
    public var thresholds: [BenchmarkMetric: Double]
    /// Absolute tolerance per metric, in base units, for baseline comparison: a change is reported only
    /// when it exceeds both the relative and the absolute tolerance. Absorbs page-sized noise on tiny values.
    public var absoluteThresholds: [BenchmarkMetric: Double]

    /// The default relative tolerances: 25 % for time and throughput, 10 % for allocation counts and bytes,
    /// 20 % for heap and resident memory.
    public static let defaultThresholds: [BenchmarkMetric: Double] = [
        .wallClock: 0.25,
        .cpuTotal: 0.25,
        .throughput: 0.25,
        .mallocCountTotal: 0.10,
        .bytesAllocated: 0.10,
        .peakHeapDelta: 0.20,
        .peakMemoryResident: 0.20,
        .peakMemoryResidentDelta: 0.20,
    ]

    /// The default absolute tolerances: 1 MiB for heap and resident memory, nothing for the other metrics.
    public static let defaultAbsoluteThresholds: [BenchmarkMetric: Double] = [
        .peakHeapDelta: 1_048_576,
        .peakMemoryResident: 1_048_576,
        .peakMemoryResidentDelta: 1_048_576,
    ]

    /// Creates a configuration; every parameter has a sensible default.
    public init(
        warmupIterations: Int = 1,
        minIterations: Int = 5,
        maxIterations: Int = 10,
        maxDuration: Duration = .seconds(10),
        scalingFactor: Int = 1,
        quickMaxIterations: Int = 3,
        quickWarmupIterations: Int = 1,
        quickMaxDuration: Duration = .seconds(3),
        metrics: [BenchmarkMetric] = BenchmarkMetric.allCases,
        thresholds: [BenchmarkMetric: Double] = BenchmarkConfiguration.defaultThresholds,
        absoluteThresholds: [BenchmarkMetric: Double] = BenchmarkConfiguration.defaultAbsoluteThresholds
    ) {
        self.warmupIterations = warmupIterations
        self.minIterations = minIterations
        self.maxIterations = maxIterations
        self.maxDuration = maxDuration
        self.scalingFactor = scalingFactor
        self.quickMaxIterations = quickMaxIterations
        self.quickWarmupIterations = quickWarmupIterations
        self.quickMaxDuration = quickMaxDuration
        self.metrics = metrics
        self.thresholds = thresholds
        self.absoluteThresholds = absoluteThresholds
    }

    /// The relative tolerance for `metric` (falling back to the default).
    public func threshold(for metric: BenchmarkMetric) -> Double {
        max(0, thresholds[metric] ?? Self.defaultThresholds[metric] ?? 0.25)
    }

    /// The absolute tolerance for `metric` in base units (0 when none is set).
    public func absoluteThreshold(for metric: BenchmarkMetric) -> Double {
        max(0, absoluteThresholds[metric] ?? 0)
    }

    /// Warm-up iterations actually run in the given mode (never negative).
    func effectiveWarmupIterations(quick: Bool) -> Int {
        let full = max(0, warmupIterations)
        return quick ? min(full, max(0, quickWarmupIterations)) : full
    }

    /// Measured iterations that run whatever the budget (at least one).
    var effectiveMinIterations: Int {
        max(1, minIterations)
    }

    /// Measured iterations allowed in the given mode (never fewer than the minimum).
    func effectiveMaxIterations(quick: Bool) -> Int {
        max(effectiveMinIterations, quick ? quickMaxIterations : maxIterations)
    }

    /// The measured-time budget in nanoseconds for the given mode, clamped to be non-negative.
    func maxDurationNanoseconds(quick: Bool) -> UInt64 {
        let full = Self.nanoseconds(maxDuration)
        return quick ? min(full, Self.nanoseconds(quickMaxDuration)) : full
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return UInt64.max }
        return product &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// The requested metrics without duplicates, in declaration order.
    var orderedMetrics: [BenchmarkMetric] {
        BenchmarkMetric.allCases.filter(metrics.contains)
    }
}
