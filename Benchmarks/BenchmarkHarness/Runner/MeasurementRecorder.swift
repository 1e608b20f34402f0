/// Takes the readings around the measured segments of one iteration.
///
/// Start order: reset peak RSS, read RSS, read jemalloc, reset the thread's heap peak, read CPU,
/// read wall clock. Stop order: wall clock, CPU, heap peak, jemalloc, peak RSS. So the harness's own work (and its allocations)
/// stays outside the measured region as far as possible.
final class MeasurementRecorder {
    private struct SegmentStart {
        var wall: UInt64
        var cpu: UInt64
        var counters: JemallocStatistics.Counters?
        var residentBefore: Int?
    }

    private enum State {
        case idle
        case implicit(SegmentStart)
        case explicit(SegmentStart)
    }

    private let sources: MeasurementSources
    private let wantsJemalloc: Bool
    private let wantsResidentMemory: Bool
    private let wantsHeapPeak: Bool
    private var state: State = .idle
    private var measurement = IterationMeasurement()
    private var jemallocValid = true

    /// Creates a recorder for the given metrics.
    init(sources: MeasurementSources, metrics: [BenchmarkMetric]) {
        self.sources = sources
        wantsJemalloc = sources.jemalloc.isAvailable && metrics.contains(where: \.needsJemalloc)
        wantsHeapPeak = sources.jemalloc.isThreadPeakAvailable && metrics.contains(.peakHeapDelta)
        wantsResidentMemory = sources.residentMemoryAvailable && metrics.contains(where: \.needsResidentMemory)
    }

    /// Whether a segment is running.
    var isMeasuring: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Resets the accumulated measurement and starts the implicit whole-body segment.
    func beginIteration() {
        measurement = IterationMeasurement()
        jemallocValid = true
        state = .implicit(takeStart())
    }

    /// Starts an explicit segment; discards the implicit one if it is still running.
    func startExplicitSegment() {
        switch state {
        case .implicit:
            measurement = IterationMeasurement()
            jemallocValid = true
            state = .explicit(takeStart())
        case .idle:
            state = .explicit(takeStart())
        case .explicit:
            break
        }
    }

    /// Ends the running segment, if any, and adds it to the iteration's measurement.
    func stopSegment() {
        switch state {
        case .implicit(let start), .explicit(let start):
            accumulate(from: start)
            state = .idle
        case .idle:
            break
        }
    }

    /// Ends the iteration (stopping a running segment) and returns what it measured.
    func finishIteration() -> IterationMeasurement {
        stopSegment()
        var result = measurement
        if !jemallocValid {
            result.mallocCount = nil
            result.bytesAllocated = nil
            result.peakHeapDeltaBytes = nil
        }
        return result
    }

    /// Drops any running segment without recording it (used when the body throws).
    func abandonIteration() {
        state = .idle
    }

    private func takeStart() -> SegmentStart {
        var residentBefore: Int?
        if wantsResidentMemory {
            if sources.peakResetSupported {
                ResidentMemory.resetPeak()
            }
            residentBefore = ResidentMemory.readStatus()?.residentBytes
        }
        let counters = wantsJemalloc ? sources.jemalloc.read() : nil
        if wantsHeapPeak {
            sources.jemalloc.resetThreadPeak()
        }
        let cpu = CPUTime.processNanoseconds()
        let wall = WallClock.nowNanoseconds()
        return SegmentStart(wall: wall, cpu: cpu, counters: counters, residentBefore: residentBefore)
    }

    private func accumulate(from start: SegmentStart) {
        let wall = WallClock.nowNanoseconds()
        let cpu = CPUTime.processNanoseconds()
        let threadPeak = wantsHeapPeak ? sources.jemalloc.readThreadPeak() : nil
        let counters = wantsJemalloc ? sources.jemalloc.read() : nil
        let status = wantsResidentMemory ? ResidentMemory.readStatus() : nil

        measurement.segments += 1
        measurement.wallNanoseconds &+= wall >= start.wall ? wall - start.wall : 0
        measurement.cpuNanoseconds &+= cpu >= start.cpu ? cpu - start.cpu : 0

        if wantsJemalloc {
            if let before = start.counters, let after = counters,
                after.mallocCount >= before.mallocCount, after.bytesAllocated >= before.bytesAllocated
            {
                measurement.mallocCount = (measurement.mallocCount ?? 0) &+ (after.mallocCount - before.mallocCount)
                measurement.bytesAllocated = (measurement.bytesAllocated ?? 0) &+ (after.bytesAllocated - before.bytesAllocated)
            } else {
                jemallocValid = false
            }
        }

        if wantsHeapPeak, let threadPeak, let before = start.counters, let after = counters {
            // The thread's peak misses other threads' allocations; their net growth is a floor.
            let netGrowth = after.liveBytes > before.liveBytes ? after.liveBytes - before.liveBytes : 0
            measurement.peakHeapDeltaBytes = max(measurement.peakHeapDeltaBytes ?? 0, max(threadPeak, netGrowth))
        }

        if let status {
            measurement.peakResidentBytes = max(measurement.peakResidentBytes ?? 0, status.peakResidentBytes)
            if sources.peakResetSupported, let before = start.residentBefore {
                let delta = max(0, status.peakResidentBytes - before)
                measurement.peakResidentDeltaBytes = max(measurement.peakResidentDeltaBytes ?? 0, delta)
            }
        }
    }
}
