import Testing

@testable import BenchmarkHarness

@Suite("Ratios and targets")
struct RatioAndTargetTests {
    let strata = Fixtures.results("q [strata]", [.wallClock: 3_000_000, .mallocCountTotal: 10, .bytesAllocated: 0, .throughput: 100])
    let raw = Fixtures.results("q [raw]", [.wallClock: 2_000_000, .mallocCountTotal: 0, .bytesAllocated: 0, .throughput: 150])

    @Test func ratioRules() {
        #expect(BenchmarkRatio.ratio(3, 2) == 1.5)
        #expect(BenchmarkRatio.ratio(0, 0) == 1)
        #expect(BenchmarkRatio.ratio(5, 0) == nil)
        #expect(BenchmarkRatio.ratio(.infinity, 1) == nil)
    }

    @Test func pairRatiosPerMetric() {
        let ratios = BenchmarkRatio.ratios(numerator: strata, denominator: raw)
        #expect(ratios[.wallClock] == 1.5)
        #expect(ratios[.mallocCountTotal] == nil)
        #expect(ratios[.bytesAllocated] == 1)
        #expect(abs((ratios[.throughput] ?? 0) - 2.0 / 3.0) < 1e-12)
        #expect(ratios[.cpuTotal] == nil)
    }

    private var pair: TargetSubject {
        .comparison(numerator: strata, numeratorLabel: "strata", denominator: raw, denominatorLabel: "raw")
    }

    @Test func ratioTargets() {
        let met = TargetEvaluator.evaluate(.ratioAtMost(1.5), subjectName: "q", subject: pair)
        #expect(met.status == .met)
        #expect(met.description == "wall clock ratio ≤ 1.50×")
        #expect(met.detail == "strata 3.00 ms ÷ raw 2.00 ms = 1.50× (limit ≤ 1.50×)")
        #expect(TargetEvaluator.evaluate(.ratioAtMost(1.4), subjectName: "q", subject: pair).status == .missed)
        #expect(TargetEvaluator.evaluate(.ratioAtLeast(0.5), subjectName: "q", subject: pair).status == .met)
        let undefined = TargetEvaluator.evaluate(.ratioAtMost(2, metric: .mallocCountTotal), subjectName: "q", subject: pair)
        #expect(undefined.status == .missed)
        #expect(undefined.detail.contains("undefined"))
        let notMeasured = TargetEvaluator.evaluate(.ratioAtMost(2, metric: .cpuTotal), subjectName: "q", subject: pair)
        #expect(notMeasured.status == .missed)
        let single = TargetEvaluator.evaluate(.ratioAtMost(2), subjectName: "q", subject: .single(strata))
        #expect(single.status == .missed)
        #expect(single.detail.contains("needs a pair"))
    }

    @Test func absoluteTargets() {
        #expect(TargetEvaluator.evaluate(.absoluteAtMost(3, metric: .wallClock, unit: "ms"), subjectName: "q", subject: pair).status == .met)
        #expect(TargetEvaluator.evaluate(.absoluteAtMost(2_999, metric: .wallClock, unit: "µs"), subjectName: "q", subject: pair).status == .missed)
        #expect(TargetEvaluator.evaluate(.absoluteAtLeast(0.1, metric: .throughput, unit: "K/s"), subjectName: "q", subject: .single(strata)).status == .met)
        let unknown = TargetEvaluator.evaluate(.absoluteAtMost(1, metric: .wallClock, unit: "fortnights"), subjectName: "q", subject: pair)
        #expect(unknown.status == .missed)
        #expect(unknown.detail.contains("unknown unit"))
        #expect(BenchmarkTarget.absoluteAtMost(50, metric: .wallClock, unit: "ms").description == "wall clock p50 ≤ 50 ms")
        #expect(BenchmarkTarget.worstIterationAtMost(64, metric: .peakHeapDelta, unit: "MiB").description == "peak heap delta worst iteration ≤ 64 MiB")
    }

    @Test func customTargets() {
        let custom = BenchmarkTarget.custom("few mallocs") { results in
            ((results.p50(.mallocCountTotal) ?? .infinity) < 20, "mallocs \(results.p50(.mallocCountTotal) ?? -1)")
        }
        let outcome = TargetEvaluator.evaluate(custom, subjectName: "q", subject: pair)
        #expect(outcome.status == .met)
        #expect(outcome.description == "few mallocs")
        let comparison = BenchmarkTarget.customComparison("strata slower") { strata, raw in
            ((strata.p50(.wallClock) ?? 0) > (raw.p50(.wallClock) ?? 0), "compared")
        }
        #expect(TargetEvaluator.evaluate(comparison, subjectName: "q", subject: pair).status == .met)
        #expect(TargetEvaluator.evaluate(comparison, subjectName: "q", subject: .single(strata)).status == .missed)
    }

    @Test func unitMultipliers() {
        #expect(MetricUnitKind.nanoseconds.multiplier(forUnit: "ms") == 1_000_000)
        #expect(MetricUnitKind.nanoseconds.multiplier(forUnit: "us") == 1_000)
        #expect(MetricUnitKind.bytes.multiplier(forUnit: "MiB") == 1_048_576)
        #expect(MetricUnitKind.bytes.multiplier(forUnit: "kb") == 1_024)
        #expect(MetricUnitKind.count.multiplier(forUnit: "") == 1)
        #expect(MetricUnitKind.count.multiplier(forUnit: "K") == 1_000)
        #expect(MetricUnitKind.operationsPerSecond.multiplier(forUnit: "Mops/s") == 1_000_000)
        #expect(MetricUnitKind.operationsPerSecond.multiplier(forUnit: "/s") == 1)
        #expect(MetricUnitKind.nanoseconds.multiplier(forUnit: "MiB") == nil)
    }
}
