/// The percentiles the harness reports for every metric.
public enum BenchmarkPercentile: String, Codable, CaseIterable, Sendable {
    /// The minimum.
    case p0
    /// The first quartile.
    case p25
    /// The median: the value used for ratios, targets and baseline comparison.
    case p50
    /// The third quartile.
    case p75
    /// The 90th percentile.
    case p90
    /// The 99th percentile.
    case p99
    /// The maximum.
    case p100

    /// The percentile as a fraction in 0...1.
    public var fraction: Double {
        switch self {
        case .p0: 0
        case .p25: 0.25
        case .p50: 0.5
        case .p75: 0.75
        case .p90: 0.9
        case .p99: 0.99
        case .p100: 1
        }
    }
}

/// Percentile computation by linear interpolation between closest ranks
/// (the "R-7" / NumPy default definition).
public enum Percentiles {
    /// The value at `fraction` (clamped to 0...1) of `sortedValues`, which must be sorted ascending.
    /// Returns nil for an empty array.
    public static func value(atFraction fraction: Double, ofSorted sortedValues: [Double]) -> Double? {
        guard let first = sortedValues.first else { return nil }
        guard sortedValues.count > 1 else { return first }
        let clamped = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let position = clamped * Double(sortedValues.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sortedValues.count - 1)
        let weight = position - Double(lower)
        return sortedValues[lower] + (sortedValues[upper] - sortedValues[lower]) * weight
    }

    /// The value of `percentile` over `values` (in any order); nil for an empty array.
    public static func value(_ percentile: BenchmarkPercentile, of values: [Double]) -> Double? {
        value(atFraction: percentile.fraction, ofSorted: values.sorted())
    }
}
