import StrataProgress
import Testing

@Suite("Progress lines")
struct ProgressTests {
    @Test func statusTextShowsRateChecksAndWhatRemains() {
        let timed = ProgressStatus(label: "stress", done: 4_000, unit: "ops", checks: 12, detail: "30 transfers", elapsed: 10, secondsLeft: 50)
        #expect(timed.text == "stress t=10s: 4000 ops (400/s), 12 invariant checks, 50 s left; 30 transfers")
        let counted = ProgressStatus(label: "crash loop", done: 25, total: 100, unit: "kills", elapsed: 50)
        #expect(counted.text == "crash loop t=50s: 25/100 kills (0.5/s), 2 min 30 s left")
        let starting = ProgressStatus(label: "benchmarks", done: 0, total: 10, unit: "benchmarks", elapsed: 0)
        #expect(starting.text == "benchmarks t=0s: 0/10 benchmarks (0/s)")
    }

    @Test func plainLinesComeAtTheIntervalOffATerminal() {
        let lines = Lines()
        let meter = ProgressMeter(lineInterval: 10, terminal: false) { lines.append($0) }
        #expect(!meter.isTerminal)
        var printed: [Bool] = []
        for elapsed in [0.5, 5, 10, 12, 19.9, 20.1, 35] {
            printed.append(meter.update(ProgressStatus(label: "run", done: Int(elapsed), unit: "ops", elapsed: elapsed)))
        }
        #expect(printed == [false, false, true, false, false, true, true])
        #expect(lines.all.count == 3)
        #expect(lines.all.allSatisfy { !$0.contains("\r") })
        // No interval: the run prints its own lines, the meter none.
        let silent = ProgressMeter(lineInterval: nil, terminal: false) { lines.append($0) }
        #expect(!silent.update(ProgressStatus(label: "run", done: 1, unit: "ops", elapsed: 100)))
    }
}

/// Lines collected from any thread.
private final class Lines: @unchecked Sendable {
    // @unchecked Sendable: the tests above call `append` from one thread only.
    private(set) var all: [String] = []
    func append(_ line: String) { all.append(line) }
}
