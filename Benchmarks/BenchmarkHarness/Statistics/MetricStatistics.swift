/// Summary statistics of one metric over the measured (non-warm-up) iterations of a benchmark.
public struct MetricStatistics: Codable, Sendable, Equatable {
    /// Number of samples summarised.
    public var count: Int
    /// Minimum.
    public var p0: Double
    /// First quartile.
    public var p25: Double
    /// Median.
    public var p50: Double
    /// Third quartile.
    public var p75: Double
    /// 90th percentile.
    public var p90: Double
    /// 99th percentile.
    public var p99: Double
    /// Maximum.
    public var p100: Double
    /// Arithmetic mean.
    public var mean: Double

    /// Creates statistics from explicit values (mostly for tests and synthetic results).
    public init(count: Int, p0: Double, p25: Double, p50: Double, p75: Double, p90: Double, p99: Double, p100: Double, mean: Double) {
        self.count = count
        self.p0 = p0
        self.p25 = p25
        self.p50 = p50
        self.p75 = p75
        self.p90 = p90
        self.p99 = p99
        self.p100 = p100
        self.mean = mean
    }

    /// Statistics where every percentile equals `value` (handy for synthetic results).
    public init(constant value: Double, count: Int = 1) {
        self.init(count: count, p0: value, p25: value, p50: value, p75: value, p90: value, p99: value, p100: value, mean: value)
    }

    /// Computes the statistics of `samples`; nil if there are no finite samples.
    public init?(samples: [Double]) {
        let sorted = samples.filter(\.isFinite).sorted()
        guard !sorted.isEmpty else { return nil }
        func at(_ percentile: BenchmarkPercentile) -> Double {
            Percentiles.value(atFraction: percentile.fraction, ofSorted: sorted) ?? 0
        }
        self.init(
            count: sorted.count,
            p0: at(.p0), p25: at(.p25), p50: at(.p50), p75: at(.p75),
            p90: at(.p90), p99: at(.p99), p100: at(.p100),
            mean: sorted.reduce(0, +) / Double(sorted.count)
        )
    }

    /// The value of one percentile.
    public func value(_ percentile: BenchmarkPercentile) -> Double {
        switch percentile {
        case .p0: p0
        case .p25: p25
        case .p50: p50
        case .p75: p75
        case .p90: p90
        case .p99: p99
        case .p100: p100
        }
    }
}
