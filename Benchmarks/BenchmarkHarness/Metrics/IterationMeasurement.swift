/// Everything measured during one iteration (summed over its measured segments).
struct IterationMeasurement: Equatable {
    /// Wall-clock nanoseconds.
    var wallNanoseconds: UInt64 = 0
    /// Process CPU nanoseconds.
    var cpuNanoseconds: UInt64 = 0
    /// Allocation requests, nil when not measured.
    var mallocCount: UInt64?
    /// Bytes allocated, nil when not measured.
    var bytesAllocated: UInt64?
    /// Peak live-heap growth in bytes (maximum over the segments), nil when not measured.
    var peakHeapDeltaBytes: UInt64?
    /// Peak resident bytes (maximum over the segments), nil when not measured.
    var peakResidentBytes: Int?
    /// Peak resident bytes minus resident bytes at segment start (maximum over the segments), nil when not measured.
    var peakResidentDeltaBytes: Int?
    /// Number of measured segments.
    var segments: Int = 0

    /// The per-metric sample values of this iteration for the requested `metrics`.
    /// Metrics that could not be measured are left out.
    func samples(for metrics: [BenchmarkMetric], scalingFactor: Int) -> [BenchmarkMetric: Double] {
        var result: [BenchmarkMetric: Double] = [:]
        for metric in metrics {
            switch metric {
            case .wallClock:
                result[metric] = Double(wallNanoseconds)
            case .cpuTotal:
                result[metric] = Double(cpuNanoseconds)
            case .throughput:
                if wallNanoseconds > 0 {
                    result[metric] = Double(scalingFactor) / (Double(wallNanoseconds) / 1_000_000_000)
                }
            case .mallocCountTotal:
                result[metric] = mallocCount.map { Double($0) }
            case .bytesAllocated:
                result[metric] = bytesAllocated.map { Double($0) }
            case .peakHeapDelta:
                result[metric] = peakHeapDeltaBytes.map { Double($0) }
            case .peakMemoryResident:
                result[metric] = peakResidentBytes.map { Double($0) }
            case .peakMemoryResidentDelta:
                result[metric] = peakResidentDeltaBytes.map { Double($0) }
            }
        }
        return result
    }
}
