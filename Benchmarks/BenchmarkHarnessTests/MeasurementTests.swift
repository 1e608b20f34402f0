import Foundation
import Testing

@testable import BenchmarkHarness

private final class Node {
    var value: Int
    init(_ value: Int) { self.value = value }
}

@Suite("Measurements")
struct MeasurementTests {
    @Test func statusParsing() {
        let text = "Name:\tx\nVmHWM:\t   2048 kB\nVmRSS:\t    1024 kB\nThreads:\t1\n"
        #expect(ResidentMemory.parseStatus(text) == ResidentMemory.Status(residentBytes: 1_048_576, peakResidentBytes: 2_097_152))
        #expect(ResidentMemory.parseStatus("garbage") == nil)
    }

    @Test func clocksAdvance() {
        let wall = WallClock.nowNanoseconds()
        let cpu = CPUTime.processNanoseconds()
        var total = 0
        for index in 0..<100_000 { total &+= index }
        #expect(total > 0)
        #expect(WallClock.nowNanoseconds() > wall)
        #expect(CPUTime.processNanoseconds() >= cpu)
    }

    @Test func countsAllocationsOnTheMeasuringThread() {
        let sources = MeasurementSources()
        guard sources.jemalloc.isAvailable else {
            // jemalloc not interposed in this process: the metrics must be reported as unavailable instead.
            #expect(sources.unavailableReason(for: .mallocCountTotal) != nil)
            return
        }
        let recorder = MeasurementRecorder(sources: sources, metrics: BenchmarkMetric.allCases)
        recorder.beginIteration()
        var nodes: [Node] = []
        nodes.reserveCapacity(1_000)
        for index in 0..<1_000 { nodes.append(Node(index)) }
        let measurement = recorder.finishIteration()
        #expect(nodes.count == 1_000)
        // Other tests may allocate concurrently, so only a lower bound is exact.
        #expect((measurement.mallocCount ?? 0) >= 1_000)
        #expect((measurement.bytesAllocated ?? 0) >= 1_000 * 32)
        #expect(measurement.wallNanoseconds > 0)
        #expect(measurement.segments == 1)
    }

    @Test func explicitMeasurementExcludesSetupAndSumsSegments() {
        let sources = MeasurementSources()
        let recorder = MeasurementRecorder(sources: sources, metrics: [.wallClock])
        recorder.beginIteration()
        recorder.startExplicitSegment()
        recorder.startExplicitSegment()  // ignored: already running
        recorder.stopSegment()
        recorder.stopSegment()  // ignored: nothing running
        recorder.startExplicitSegment()
        let measurement = recorder.finishIteration()
        #expect(measurement.segments == 2)
    }

    @Test func samplesIncludeThroughput() {
        let measurement = IterationMeasurement(wallNanoseconds: 500_000_000, cpuNanoseconds: 1, mallocCount: 3, bytesAllocated: 64, peakResidentBytes: nil, peakResidentDeltaBytes: nil, segments: 1)
        let samples = measurement.samples(for: BenchmarkMetric.allCases, scalingFactor: 1_000)
        #expect(samples[.throughput] == 2_000)
        #expect(samples[.wallClock] == 500_000_000)
        #expect(samples[.mallocCountTotal] == 3)
        #expect(samples[.bytesAllocated] == 64)
        #expect(samples[.peakMemoryResident] == nil)
    }

    @Test func contextStartStopInsideABenchmark() throws {
        let suite = BenchmarkSuite(name: "Context")
        let configuration = BenchmarkConfiguration(warmupIterations: 1, minIterations: 1, maxIterations: 2, metrics: [.wallClock])
        suite.benchmark("setup excluded", configuration: configuration) { context in
            usleep(10_000)  // set-up work that must not be measured
            context.startMeasurement()
            context.blackHole(context.isWarmup)
            context.stopMeasurement()
            usleep(10_000)  // clean-up work that must not be measured either
        }
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench", "--format", "json"], output: console.output) == 0)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        let results = try #require(report.results(named: "setup excluded"))
        #expect(results.iterations == 2)
        #expect(results.warmupIterations == 1)
        #expect(results.measuredMetrics == [.wallClock])
        #expect((results.p50(.wallClock) ?? .infinity) < 10_000_000)
    }
}
