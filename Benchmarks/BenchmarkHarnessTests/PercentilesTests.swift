import Testing

@testable import BenchmarkHarness

@Suite("Percentiles")
struct PercentilesTests {
    @Test func oneToHundredAndOne() throws {
        let values = (1...101).map(Double.init).shuffled()
        let statistics = try #require(MetricStatistics(samples: values))
        #expect(statistics.count == 101)
        #expect(statistics.p0 == 1)
        #expect(statistics.p25 == 26)
        #expect(statistics.p50 == 51)
        #expect(statistics.p75 == 76)
        #expect(statistics.p90 == 91)
        #expect(statistics.p99 == 100)
        #expect(statistics.p100 == 101)
        #expect(statistics.mean == 51)
    }

    @Test func interpolatesBetweenRanks() {
        let values: [Double] = [10, 20, 30, 40]
        #expect(Percentiles.value(.p50, of: values) == 25)
        #expect(Percentiles.value(.p25, of: values) == 17.5)
        #expect(abs((Percentiles.value(.p90, of: values) ?? 0) - 37) < 1e-9)
        #expect(Percentiles.value(.p0, of: values) == 10)
        #expect(Percentiles.value(.p100, of: values) == 40)
    }

    @Test func singleAndEmptySamples() {
        #expect(Percentiles.value(.p99, of: [7]) == 7)
        #expect(Percentiles.value(.p50, of: []) == nil)
        #expect(MetricStatistics(samples: []) == nil)
        #expect(MetricStatistics(samples: [.nan, .infinity]) == nil)
    }

    @Test func fractionIsClamped() {
        #expect(Percentiles.value(atFraction: 2, ofSorted: [1, 2, 3]) == 3)
        #expect(Percentiles.value(atFraction: -1, ofSorted: [1, 2, 3]) == 1)
        #expect(Percentiles.value(atFraction: .nan, ofSorted: [1, 2, 3]) == 1)
    }

    @Test func valueAccessorMatchesFields() throws {
        let statistics = try #require(MetricStatistics(samples: [1, 2, 3, 4, 5]))
        for percentile in BenchmarkPercentile.allCases {
            #expect(statistics.value(percentile) == Percentiles.value(percentile, of: [1, 2, 3, 4, 5]))
        }
    }
}
