import Foundation
import Testing

@testable import BenchmarkHarness

@Suite("Memory targets")
struct MemoryTargetTests {
    /// Peak heap deltas of 5 iterations: the median is small, one iteration is not.
    private let results = BenchmarkResults(
        name: "walk [strata]",
        iterations: 5,
        statistics: [.peakHeapDelta: MetricStatistics(samples: [1, 2, 3, 2, 100].map { $0 * 1_048_576 })].compactMapValues { $0 }
    )

    @Test func worstIterationTargetChecksTheMaximumNotTheMedian() {
        let median = TargetEvaluator.evaluate(.absoluteAtMost(64, metric: .peakHeapDelta, unit: "MiB"), subjectName: "walk", subject: .single(results))
        #expect(median.status == .met)
        let worst = TargetEvaluator.evaluate(.worstIterationAtMost(64, metric: .peakHeapDelta, unit: "MiB"), subjectName: "walk", subject: .single(results))
        #expect(worst.status == .missed)
        #expect(worst.detail.contains("worst of 5 iterations 100"))
        #expect(TextReport.targetLine(worst).hasPrefix("target MISSED: [walk] peak heap delta worst iteration ≤ 64 MiB"))
        let roomy = TargetEvaluator.evaluate(.worstIterationAtMost(128, metric: .peakHeapDelta, unit: "MiB"), subjectName: "walk", subject: .single(results))
        #expect(roomy.status == .met)
    }

    @Test func heapPeakSeesMemoryFreedBeforeTheIterationEnds() {
        let sources = MeasurementSources()
        guard sources.jemalloc.isAvailable, sources.jemalloc.isThreadPeakAvailable else {
            #expect(sources.unavailableReason(for: .peakHeapDelta) != nil)
            return
        }
        let recorder = MeasurementRecorder(sources: sources, metrics: [.peakHeapDelta])
        recorder.beginIteration()
        let size = 8 * 1_048_576
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        buffer.deallocate()
        let measurement = recorder.finishIteration()
        #expect((measurement.peakHeapDeltaBytes ?? 0) >= UInt64(size))
    }

    @Test func oneHeavyIterationMissesAWorstIterationTargetInARealPair() throws {
        guard MeasurementSources().jemalloc.isThreadPeakAvailable else { return }
        let suite = BenchmarkSuite(name: "Heap")
        let configuration = BenchmarkConfiguration(warmupIterations: 0, maxIterations: 5, metrics: [.wallClock, .peakHeapDelta])
        suite.pair(
            "walk", configuration: configuration,
            targets: [.worstIterationAtMost(4, metric: .peakHeapDelta, unit: "MiB"), .absoluteAtMost(4, metric: .peakHeapDelta, unit: "MiB")],
            strata: { context in
                // Only the third measured iteration holds 16 MiB at its peak.
                let size = context.iteration == 3 ? 16 * 1_048_576 : 4_096
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                buffer.initializeMemory(as: UInt8.self, repeating: 1, count: size)
                buffer.deallocate()
                return RowDigest(count: 1, checksum: 1)
            },
            raw: { _ in RowDigest(count: 1, checksum: 1) })
        let console = CapturedConsole()
        #expect(suite.run(arguments: ["bench", "--format", "json"], output: console.output) == 0)
        let report = try JSONReport.decode(Data(console.standardOutput.utf8))
        #expect(report.targets.map(\.status) == [.missed, .met])
        #expect(suite.run(arguments: ["bench", "--fail-on-missed-targets"], output: CapturedConsole().output) == 2)
    }
}
