/// A quantity the harness measures for every benchmark iteration.
///
/// Values are always stored in base units: nanoseconds for times, plain counts,
/// bytes for sizes and operations per second for throughput.
public enum BenchmarkMetric: String, Codable, CaseIterable, Sendable, CodingKeyRepresentable {
    /// Elapsed wall-clock time of the measured region, in nanoseconds.
    case wallClock
    /// CPU time consumed by the whole process (all threads) during the measured region, in nanoseconds.
    case cpuTotal
    /// Units of work per second: the configuration's `scalingFactor` divided by the wall-clock seconds.
    case throughput
    /// Number of allocation requests served by jemalloc during the measured region (process-wide).
    case mallocCountTotal
    /// Bytes requested from jemalloc during the measured region, rounded to jemalloc size classes (process-wide).
    case bytesAllocated
    /// The highest live heap (jemalloc's allocated bytes) reached during the measured region minus
    /// the live heap at its start, in bytes: the peak tracked by jemalloc for the measuring thread
    /// (`thread.peak`), or the process-wide net growth (`stats.allocated`) when that is larger.
    /// Unlike resident memory it does not depend on pages another benchmark left mapped.
    case peakHeapDelta
    /// Peak resident set size (VmHWM) reached during the measured region, in bytes.
    case peakMemoryResident
    /// Peak resident set size during the measured region minus the resident size just before it, in bytes.
    case peakMemoryResidentDelta
}

extension BenchmarkMetric {
    /// The human-readable name used in reports.
    public var displayName: String {
        switch self {
        case .wallClock: "Wall clock"
        case .cpuTotal: "CPU total"
        case .throughput: "Throughput"
        case .mallocCountTotal: "Malloc count"
        case .bytesAllocated: "Bytes allocated"
        case .peakHeapDelta: "Peak heap delta"
        case .peakMemoryResident: "Peak resident"
        case .peakMemoryResidentDelta: "Peak resident delta"
        }
    }

    /// Whether a larger value is an improvement (true only for throughput).
    public var higherIsBetter: Bool {
        self == .throughput
    }

    /// The kind of unit the metric's values are expressed in.
    public var unitKind: MetricUnitKind {
        switch self {
        case .wallClock, .cpuTotal: .nanoseconds
        case .throughput: .operationsPerSecond
        case .mallocCountTotal: .count
        case .bytesAllocated, .peakHeapDelta, .peakMemoryResident, .peakMemoryResidentDelta: .bytes
        }
    }

    /// Whether the metric needs jemalloc's statistics.
    var needsJemalloc: Bool {
        self == .mallocCountTotal || self == .bytesAllocated || self == .peakHeapDelta
    }

    /// Whether the metric needs the resident-memory counters of `/proc/self/status`.
    var needsResidentMemory: Bool {
        self == .peakMemoryResident || self == .peakMemoryResidentDelta
    }
}
