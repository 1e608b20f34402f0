import Foundation
import Testing

@testable import BenchmarkHarness

@Suite("Baseline comparison")
struct BaselineComparisonTests {
    let baseline = Fixtures.report([
        Fixtures.results("fetch", [.wallClock: 1_000_000, .mallocCountTotal: 100, .throughput: 1_000]),
        Fixtures.results("insert", [.wallClock: 2_000_000]),
    ])

    @Test func equalWithinThresholds() {
        let current = Fixtures.report([
            Fixtures.results("fetch", [.wallClock: 1_200_000, .mallocCountTotal: 105, .throughput: 900]),
            Fixtures.results("insert", [.wallClock: 1_600_000]),
        ])
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, baselineName: "main")
        #expect(comparison.verdict == .equal)
        #expect(comparison.deltas.count == 4)
        #expect(comparison.deltas.allSatisfy { $0.verdict == .equal })
        #expect(exitCode(comparison) == 0)
    }

    @Test func regressionBeatsImprovement() {
        let current = Fixtures.report([
            Fixtures.results("fetch", [.wallClock: 1_000_000, .mallocCountTotal: 111, .throughput: 1_000]),
            Fixtures.results("insert", [.wallClock: 1_000_000]),
        ])
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, baselineName: "main")
        #expect(comparison.regressions.map(\.metric) == [.mallocCountTotal])
        #expect(comparison.improvements.map(\.benchmark) == ["insert"])
        #expect(comparison.verdict == .regression)
        #expect(exitCode(comparison) == 2)
    }

    @Test func improvementsOnly() {
        let current = Fixtures.report([
            Fixtures.results("fetch", [.wallClock: 500_000, .mallocCountTotal: 50, .throughput: 2_000])
        ])
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, baselineName: "main")
        #expect(comparison.verdict == .improvement)
        #expect(comparison.improvements.count == 3)
        #expect(exitCode(comparison) == 4)
    }

    @Test func throughputDropIsARegression() {
        let (verdict, change) = BaselineComparison.classify(metric: .throughput, baseline: 1_000, current: 500, threshold: 0.25)
        #expect(verdict == .regression)
        #expect(change == -0.5)
        #expect(BaselineComparison.classify(metric: .throughput, baseline: 1_000, current: 2_000, threshold: 0.25).verdict == .improvement)
    }

    @Test func boundariesAndZeroBaselines() {
        #expect(BaselineComparison.classify(metric: .wallClock, baseline: 100, current: 125, threshold: 0.25).verdict == .equal)
        #expect(BaselineComparison.classify(metric: .wallClock, baseline: 100, current: 126, threshold: 0.25).verdict == .regression)
        #expect(BaselineComparison.classify(metric: .mallocCountTotal, baseline: 0, current: 0, threshold: 0.1).verdict == .equal)
        let fromZero = BaselineComparison.classify(metric: .mallocCountTotal, baseline: 0, current: 3, threshold: 0.1)
        #expect(fromZero.verdict == .regression)
        #expect(fromZero.relativeChange == nil)
        // The absolute tolerance absorbs page-sized noise.
        #expect(BaselineComparison.classify(metric: .peakMemoryResidentDelta, baseline: 4_096, current: 16_384, threshold: 0.2, absoluteThreshold: 1_048_576).verdict == .equal)
    }

    @Test func usesPerBenchmarkThresholds() {
        let current = Fixtures.report([Fixtures.results("insert", [.wallClock: 2_400_000])])
        let strict = BenchmarkConfiguration(thresholds: [.wallClock: 0.05])
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, baselineName: "main", configurations: ["insert": strict])
        #expect(comparison.verdict == .regression)
        #expect(comparison.deltas.first?.threshold == 0.05)
    }

    @Test func newBenchmarksAndNotes() {
        let current = Fixtures.report([Fixtures.results("brand new", [.wallClock: 1])], quick: true)
        let comparison = BaselineComparison.compare(current: current, baseline: baseline, baselineName: "main")
        #expect(comparison.newBenchmarks == ["brand new"])
        #expect(comparison.deltas.isEmpty)
        #expect(comparison.verdict == .equal)
        #expect(comparison.notes.contains { $0.contains("--quick") })
    }

    @Test func exitCodePrecedence() {
        #expect(BenchmarkExitCode.combine(hadErrors: true, comparison: .regression, missedTargets: true, failOnMissedTargets: true) == .failure)
        #expect(BenchmarkExitCode.combine(hadErrors: false, comparison: nil, missedTargets: true, failOnMissedTargets: false) == .success)
        #expect(BenchmarkExitCode.combine(hadErrors: false, comparison: nil, missedTargets: true, failOnMissedTargets: true) == .regression)
        #expect(BenchmarkExitCode.combine(hadErrors: false, comparison: .improvement, missedTargets: true, failOnMissedTargets: true) == .regression)
        #expect(BenchmarkExitCode.combine(hadErrors: false, comparison: .improvement, missedTargets: false, failOnMissedTargets: true) == .improvement)
        #expect(BenchmarkExitCode.combine(hadErrors: false, comparison: .equal, missedTargets: false, failOnMissedTargets: false) == .success)
    }

    private func exitCode(_ comparison: BaselineComparison) -> Int32 {
        BenchmarkExitCode.combine(hadErrors: false, comparison: comparison.verdict, missedTargets: false, failOnMissedTargets: false).rawValue
    }
}

@Suite("Baseline store")
struct BaselineStoreTests {
    @Test func saveAndLoad() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let store = BaselineStore(directory: directory + "/nested/baselines")
            var report = Fixtures.report([Fixtures.results("fetch", [.wallClock: 42])])
            report.comparison = BaselineComparison(baselineName: "old", deltas: [])
            try store.save(report, as: "main")
            let loaded = try store.load("main")
            #expect(loaded.benchmarks == report.benchmarks)
            #expect(loaded.comparison == nil)
        }
    }

    @Test func missingFile() throws {
        try Fixtures.withTemporaryDirectory { directory in
            let store = BaselineStore(directory: directory)
            #expect {
                try store.load("absent")
            } throws: { error in
                guard let error = error as? BaselineError, case .notFound = error else { return false }
                return error.description.contains("baseline update absent")
            }
        }
    }

    @Test(arguments: ["not json", "{\"suite\": \"x\"}", "{\"benchmarks\": [{\"name\": 1}]}", "[]"])
    func corruptedFile(_ contents: String) throws {
        try Fixtures.withTemporaryDirectory { directory in
            try contents.write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
            let store = BaselineStore(directory: directory)
            #expect {
                try store.load("bad")
            } throws: { error in
                guard let error = error as? BaselineError, case .corrupted = error else { return false }
                return error.description.contains("corrupted")
            }
        }
    }

    @Test func invalidNames() {
        for name in ["", "..", "../x", "a/b", ".hidden", "sp ace"] {
            #expect(!BaselineStore.isValidName(name))
        }
        for name in ["main", "v1.2", "pr-123_x"] {
            #expect(BaselineStore.isValidName(name))
        }
        #expect(throws: BaselineError.invalidName("a/b")) {
            try BaselineStore().path(for: "a/b")
        }
    }
}
