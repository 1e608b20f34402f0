import Testing

@testable import StrataStressKit

// `StrataStress --trace-overhead` (Stress/StrataStressKit/TraceOverheadSampler.swift) turns a
// trace recording on and off in alternate windows; the summary compares the two kinds of window.
// Core Data has no trace: what is checked is the arithmetic the reported figure rests on.
@Suite("Trace overhead: the comparison of windows with and without a recording")
struct TraceOverheadSummaryTests {
    typealias Window = TraceOverheadSampler.Window

    /// Alternate windows of one second starting without a recording: plain ones at `plain(i)`
    /// operations, recorded ones at `recorded(i)`, each using `cpu` seconds.
    func windows(_ count: Int, plain: (Int) -> Int, recorded: (Int) -> Int, cpu: Double = 1) -> [Window] {
        (0..<count).map { index in
            let recording = index % 2 == 1
            return Window(recording: recording, operations: recording ? recorded(index) : plain(index), seconds: 1, cpuSeconds: cpu)
        }
    }

    @Test("a steady 4 % loss shows as 4 % in both figures, the warm-up and the last window left out")
    func steadyLoss() {
        var all = windows(22, plain: { _ in 1_000 }, recorded: { _ in 960 })
        all[0].operations = 10  // warm-up
        all[21].operations = 5  // cut short by the deadline
        let summary = TraceOverheadSummary(all)
        #expect(summary.plainWindows == 10 && summary.recordedWindows == 9)
        #expect(abs(summary.recordedRate / summary.plainRate - 0.96) < 1e-9)
        #expect(abs(summary.medianRateChange + 0.04) < 1e-9)
        #expect(abs(summary.recordedCPUPerOperation - 1e6 / 960) < 1e-6)
        #expect(summary.figure.contains("-4.0 %"))
    }

    @Test("a machine slowing down steadily is not mistaken for the recording's cost")
    func drift() {
        // Every window 1 % slower than the one before; recording costs nothing.
        let rate = { (index: Int) in Int(100_000 * (1 - 0.01 * Double(index))) }
        let summary = TraceOverheadSummary(windows(40, plain: rate, recorded: rate))
        #expect(abs(summary.medianRateChange) < 0.001)
    }

    @Test("no windows counted gives zeros, not a division by zero")
    func empty() {
        let summary = TraceOverheadSummary([])
        #expect(summary.recordedWindows == 0 && summary.plainRate == 0 && summary.medianRateChange == 0)
        #expect(!summary.figure.isEmpty)
    }
}
