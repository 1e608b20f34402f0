/// The strata ÷ raw comparison of one benchmark pair.
public struct PairResults: Codable, Sendable, Equatable {
    /// The pair's name (without the ` [strata]` / ` [raw]` suffix).
    public var name: String
    /// Name of the Strata side's benchmark.
    public var strataBenchmark: String
    /// Name of the raw sqlite3 side's benchmark.
    public var rawBenchmark: String
    /// strata p50 ÷ raw p50 per metric; metrics whose ratio is undefined (raw is 0) are absent.
    public var ratios: [BenchmarkMetric: Double]
    /// Why the pair has no ratios, when one side failed or was not measured.
    public var note: String?
    /// The rows both sides saw in every iteration (count and checksum); nil when the pair failed.
    public var rows: RowDigest?

    /// Creates pair results.
    public init(
        name: String, strataBenchmark: String, rawBenchmark: String, ratios: [BenchmarkMetric: Double],
        note: String? = nil, rows: RowDigest? = nil
    ) {
        self.name = name
        self.strataBenchmark = strataBenchmark
        self.rawBenchmark = rawBenchmark
        self.ratios = ratios
        self.note = note
        self.rows = rows
    }
}

/// The comparison of two arbitrary benchmarks registered with ``BenchmarkSuite/relation(_:numerator:denominator:target:)``.
public struct RelationResults: Codable, Sendable, Equatable {
    /// The relation's name.
    public var name: String
    /// The benchmark whose p50 is divided.
    public var numerator: String
    /// The benchmark whose p50 divides.
    public var denominator: String
    /// numerator p50 ÷ denominator p50 per metric; undefined ratios are absent.
    public var ratios: [BenchmarkMetric: Double]
    /// Why the relation was not evaluated, if it was not.
    public var note: String?

    /// Creates relation results.
    public init(name: String, numerator: String, denominator: String, ratios: [BenchmarkMetric: Double], note: String? = nil) {
        self.name = name
        self.numerator = numerator
        self.denominator = denominator
        self.ratios = ratios
        self.note = note
    }
}

/// Ratio helpers shared by pairs, relations and targets.
public enum BenchmarkRatio {
    /// `numerator ÷ denominator`; 1 when both are 0; nil when only the denominator is 0 or a value is not finite.
    public static func ratio(_ numerator: Double, _ denominator: Double) -> Double? {
        guard numerator.isFinite, denominator.isFinite else { return nil }
        if denominator == 0 { return numerator == 0 ? 1 : nil }
        return numerator / denominator
    }

    /// The per-metric ratio of `percentile` values (p50 by default) for metrics measured on both sides.
    public static func ratios(
        numerator: BenchmarkResults,
        denominator: BenchmarkResults,
        percentile: BenchmarkPercentile = .p50
    ) -> [BenchmarkMetric: Double] {
        var result: [BenchmarkMetric: Double] = [:]
        for metric in BenchmarkMetric.allCases {
            guard let top = numerator.value(metric, percentile), let bottom = denominator.value(metric, percentile) else { continue }
            result[metric] = ratio(top, bottom)
        }
        return result
    }
}
