/// The measurement back-ends available in this process, probed once per run.
final class MeasurementSources {
    /// jemalloc's statistics (check `isAvailable`).
    let jemalloc: JemallocStatistics
    /// Whether `/proc/self/status` can be read.
    let residentMemoryAvailable: Bool
    /// Whether the peak resident size can be reset per measurement through `/proc/self/clear_refs`.
    let peakResetSupported: Bool

    /// Probes jemalloc and `/proc`.
    init() {
        jemalloc = JemallocStatistics()
        residentMemoryAvailable = ResidentMemory.readStatus() != nil
        peakResetSupported = residentMemoryAvailable && ResidentMemory.probePeakReset()
    }

    /// Why `metric` cannot be measured in this process, or nil if it can.
    func unavailableReason(for metric: BenchmarkMetric) -> String? {
        switch metric {
        case .wallClock, .cpuTotal, .throughput:
            return nil
        case .mallocCountTotal, .bytesAllocated:
            return jemalloc.unavailableReason.map { "jemalloc statistics unavailable: \($0)" }
        case .peakHeapDelta:
            return jemalloc.threadPeakUnavailableReason.map { "jemalloc heap peak unavailable: \($0)" }
        case .peakMemoryResident:
            return residentMemoryAvailable ? nil : "/proc/self/status is not readable"
        case .peakMemoryResidentDelta:
            if !residentMemoryAvailable { return "/proc/self/status is not readable" }
            return peakResetSupported ? nil : "resetting the peak via /proc/self/clear_refs is not supported"
        }
    }

    /// A summary of the back-ends for the report.
    var environment: BenchmarkEnvironment {
        BenchmarkEnvironment(
            jemallocStatistics: jemalloc.unavailableReason ?? "active",
            jemallocThreadCache: jemalloc.isAvailable ? jemalloc.threadCacheEnabled : nil,
            jemallocExtentFitLog2: jemalloc.isAvailable ? jemalloc.extentFitLog2 : nil,
            peakResidentReset: peakResetSupported
                ? "per measurement (/proc/self/clear_refs)"
                : (residentMemoryAvailable ? "unsupported: process-wide peak reported" : "unavailable")
        )
    }
}
