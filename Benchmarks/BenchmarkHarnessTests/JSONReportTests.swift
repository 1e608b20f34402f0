import Foundation
import Testing

@testable import BenchmarkHarness

@Suite("JSON report")
struct JSONReportTests {
    @Test func roundTrip() throws {
        var report = Fixtures.report([
            Fixtures.results("fetch [strata]", [.wallClock: 1_500, .mallocCountTotal: 12], pairSide: .strata),
            Fixtures.results("fetch [raw]", [.wallClock: 1_000, .mallocCountTotal: 0], pairSide: .raw),
        ])
        report.benchmarks[0].unavailableMetrics = [.peakMemoryResidentDelta: "not supported"]
        report.pairs = [PairResults(name: "fetch", strataBenchmark: "fetch [strata]", rawBenchmark: "fetch [raw]", ratios: [.wallClock: 1.5])]
        report.relations = [RelationResults(name: "r", numerator: "a", denominator: "b", ratios: [:], note: "skipped")]
        report.targets = [TargetOutcome(subject: "fetch", description: "wall clock ratio ≤ 2.00×", status: .met, detail: "1.50×")]
        report.failures = [BenchmarkFailure(benchmark: "boom", message: "threw")]
        report.comparison = BaselineComparison(
            baselineName: "main", baselineCreatedAt: Date(timeIntervalSince1970: 1_600_000_000),
            deltas: [BaselineDelta(benchmark: "fetch [raw]", metric: .wallClock, baseline: 900, current: 1_000, relativeChange: nil, threshold: 0.25, absoluteThreshold: 0, verdict: .equal)],
            newBenchmarks: ["fetch [strata]"], notes: ["n"]
        )
        let data = try JSONReport.encode(report)
        let decoded = try JSONReport.decode(data)
        #expect(decoded == report)
    }

    @Test func metricDictionariesUseNames() throws {
        let report = Fixtures.report([Fixtures.results("a", [.bytesAllocated: 64])])
        let text = JSONReport.render(report)
        #expect(text.contains("\"bytesAllocated\" : {"))
        #expect(text.contains("\"p50\" : 64"))
        #expect(text.hasSuffix("}\n"))
    }

    @Test func toleratesMissingOptionalSections() throws {
        let minimal = #"{"benchmarks": [{"name": "a", "iterations": 1, "warmupIterations": 0, "scalingFactor": 1, "statistics": {}, "unavailableMetrics": {}}]}"#
        let report = try JSONReport.decode(Data(minimal.utf8))
        #expect(report.benchmarks.map(\.name) == ["a"])
        #expect(report.pairs.isEmpty && report.targets.isEmpty && report.comparison == nil)
    }

    @Test func describesDecodingErrors() {
        #expect(throws: (any Error).self) { try JSONReport.decode(Data("{".utf8)) }
        do {
            _ = try JSONReport.decode(Data(#"{"benchmarks": 3}"#.utf8))
            Issue.record("expected a decoding error")
        } catch {
            #expect(JSONReport.describe(error).contains("benchmarks"))
        }
    }
}
