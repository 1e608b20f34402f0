import Foundation

/// Where the measurements came from.
public struct BenchmarkEnvironment: Codable, Sendable, Equatable {
    /// `"active"`, or why jemalloc's statistics were unavailable.
    public var jemallocStatistics: String
    /// Whether jemalloc's thread caches were on (`opt.tcache`); nil if unknown. When on, allocations made by
    /// other live threads are counted only once their caches flush, so multi-threaded counts can lag;
    /// `MALLOC_CONF=tcache:false` makes them exact.
    public var jemallocThreadCache: Bool?
    /// jemalloc's `opt.lg_extent_max_active_fit`; nil if unknown (and in reports made before it
    /// was recorded). The benchmark executable sets it (docs/benchmarks.md, "The allocator").
    public var jemallocExtentFitLog2: Int?
    /// How the peak resident size was measured.
    public var peakResidentReset: String
    /// Host name of the machine.
    public var hostName: String
    /// Number of active processors.
    public var processorCount: Int

    /// Creates an environment description; host name and processor count default to this machine's.
    public init(
        jemallocStatistics: String,
        jemallocThreadCache: Bool? = nil,
        jemallocExtentFitLog2: Int? = nil,
        peakResidentReset: String,
        hostName: String = ProcessInfo.processInfo.hostName,
        processorCount: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.jemallocStatistics = jemallocStatistics
        self.jemallocThreadCache = jemallocThreadCache
        self.jemallocExtentFitLog2 = jemallocExtentFitLog2
        self.peakResidentReset = peakResidentReset
        self.hostName = hostName
        self.processorCount = processorCount
    }
}

/// Everything one run produced: the JSON output and the stored baseline format.
public struct BenchmarkRunReport: Codable, Sendable, Equatable {
    /// The version of this format written by the current harness.
    public static let currentFormatVersion = 1

    /// Format version of this report.
    public var formatVersion: Int
    /// The suite's name.
    public var suite: String
    /// When the run started (whole seconds).
    public var createdAt: Date
    /// Whether the run used `--quick`.
    public var quick: Bool
    /// Measurement back-ends.
    public var environment: BenchmarkEnvironment
    /// Results of every benchmark that completed, in run order.
    public var benchmarks: [BenchmarkResults]
    /// strata ÷ raw ratios of every pair that ran.
    public var pairs: [PairResults]
    /// Ratios of every relation that was evaluated or skipped.
    public var relations: [RelationResults]
    /// Verdicts on all targets.
    public var targets: [TargetOutcome]
    /// Benchmarks that threw, and configuration errors.
    public var failures: [BenchmarkFailure]
    /// The baseline comparison, for `baseline compare`.
    public var comparison: BaselineComparison?

    /// Creates a report.
    public init(
        suite: String,
        createdAt: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
        quick: Bool = false,
        environment: BenchmarkEnvironment,
        benchmarks: [BenchmarkResults] = [],
        pairs: [PairResults] = [],
        relations: [RelationResults] = [],
        targets: [TargetOutcome] = [],
        failures: [BenchmarkFailure] = [],
        comparison: BaselineComparison? = nil
    ) {
        formatVersion = Self.currentFormatVersion
        self.suite = suite
        self.createdAt = createdAt
        self.quick = quick
        self.environment = environment
        self.benchmarks = benchmarks
        self.pairs = pairs
        self.relations = relations
        self.targets = targets
        self.failures = failures
        self.comparison = comparison
    }

    private enum CodingKeys: String, CodingKey {
        case formatVersion, suite, createdAt, quick, environment, benchmarks, pairs, relations, targets, failures, comparison
    }

    /// Decodes a report; everything except `benchmarks` is optional so older or hand-trimmed files load.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        formatVersion = try container.decodeIfPresent(Int.self, forKey: .formatVersion) ?? Self.currentFormatVersion
        suite = try container.decodeIfPresent(String.self, forKey: .suite) ?? ""
        createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt) ?? Date(timeIntervalSince1970: 0)
        quick = try container.decodeIfPresent(Bool.self, forKey: .quick) ?? false
        environment =
            try container.decodeIfPresent(BenchmarkEnvironment.self, forKey: .environment)
            ?? BenchmarkEnvironment(jemallocStatistics: "unknown", peakResidentReset: "unknown", hostName: "unknown", processorCount: 0)
        benchmarks = try container.decode([BenchmarkResults].self, forKey: .benchmarks)
        pairs = try container.decodeIfPresent([PairResults].self, forKey: .pairs) ?? []
        relations = try container.decodeIfPresent([RelationResults].self, forKey: .relations) ?? []
        targets = try container.decodeIfPresent([TargetOutcome].self, forKey: .targets) ?? []
        failures = try container.decodeIfPresent([BenchmarkFailure].self, forKey: .failures) ?? []
        comparison = try container.decodeIfPresent(BaselineComparison.self, forKey: .comparison)
    }

    /// The results of the benchmark named `name`, if it completed.
    public func results(named name: String) -> BenchmarkResults? {
        benchmarks.first { $0.name == name }
    }

    /// Targets that were missed.
    public var missedTargets: [TargetOutcome] {
        targets.filter { $0.status == .missed }
    }
}
