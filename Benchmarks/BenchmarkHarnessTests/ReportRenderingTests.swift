import Testing

@testable import BenchmarkHarness

@Suite("Report rendering")
struct ReportRenderingTests {
    private func pairReport() -> BenchmarkRunReport {
        var report = Fixtures.report([
            Fixtures.results("fetch [strata]", [.wallClock: 3_000_000, .mallocCountTotal: 1_200, .bytesAllocated: 2_097_152], pairSide: .strata),
            Fixtures.results("fetch [raw]", [.wallClock: 2_000_000, .mallocCountTotal: 400, .bytesAllocated: 1_048_576], pairSide: .raw),
        ])
        report.pairs = [
            PairResults(
                name: "fetch", strataBenchmark: "fetch [strata]", rawBenchmark: "fetch [raw]",
                ratios: [.wallClock: 1.5, .mallocCountTotal: 3, .bytesAllocated: 2]
            )
        ]
        report.targets = [
            TargetOutcome(subject: "fetch", description: "wall clock ratio ≤ 2.00×", status: .met, detail: "strata 3.00 ms ÷ raw 2.00 ms = 1.50×"),
            TargetOutcome(subject: "fetch", description: "malloc count ratio ≤ 2.00×", status: .missed, detail: "strata 1200 ÷ raw 400 = 3.00×"),
        ]
        return report
    }

    @Test func textContainsStatisticsRatiosAndTargets() {
        let text = TextReport.render(pairReport())
        #expect(text.contains("== fetch [strata] =="))
        #expect(text.contains("== Pair: fetch =="))
        let wallRows = text.split(separator: "\n").filter { $0.contains("Wall clock") }
        #expect(wallRows.contains { $0.contains("ms") && $0.contains("3.00") })
        #expect(wallRows.contains { $0.contains("3.00 ms") && $0.contains("2.00 ms") && $0.contains("1.50×") })
        #expect(text.contains("Malloc count"))
        #expect(text.contains("target met: [fetch] wall clock ratio ≤ 2.00×"))
        #expect(text.contains("target MISSED: [fetch] malloc count ratio ≤ 2.00×"))
        #expect(text.contains("Targets: 1 met, 1 MISSED, 0 skipped"))
        // Pair section follows the raw side.
        let rawIndex = text.range(of: "== fetch [raw] ==")?.lowerBound
        let pairIndex = text.range(of: "== Pair: fetch ==")?.lowerBound
        #expect(rawIndex != nil && pairIndex != nil && rawIndex! < pairIndex!)
    }

    @Test func markdownContainsTablesAndTargets() {
        let markdown = MarkdownReport.render(pairReport())
        #expect(markdown.hasPrefix("# Strata benchmarks: Fixture"))
        #expect(markdown.contains("## fetch \\[strata\\]"))
        #expect(markdown.contains("| Metric | Unit | p0 | p25 | p50 | p75 | p90 | p99 | p100 |"))
        #expect(markdown.contains("| Wall clock | ms | 3.00 | 3.00 | 3.00 | 3.00 | 3.00 | 3.00 | 3.00 |"))
        #expect(markdown.contains("| Wall clock | 3.00 ms | 2.00 ms | 1.50× |"))
        #expect(markdown.contains("- **met** wall clock ratio ≤ 2.00×"))
        #expect(markdown.contains("- **MISSED** malloc count ratio ≤ 2.00×"))
        #expect(markdown.contains("| fetch | 1.50× |"))
    }

    /// The allocator option that decides whether a large fetch reuses the pages the previous one
    /// freed is printed in the header, with a warning below the value the benchmark executable sets.
    @Test func headerNamesTheAllocatorsExtentFit() {
        var report = pairReport()
        report.environment.jemallocExtentFitLog2 = 16
        let set = TextReport.render(report)
        #expect(set.contains("jemalloc lg_extent_max_active_fit: 16\n"))
        report.environment.jemallocExtentFitLog2 = 6
        #expect(TextReport.render(report).contains("jemalloc lg_extent_max_active_fit: 6 (below 16: a large fetch takes new pages"))
        report.environment.jemallocExtentFitLog2 = nil
        #expect(!TextReport.render(report).contains("lg_extent_max_active_fit"))
    }

    @Test func comparisonTable() {
        var report = Fixtures.report([Fixtures.results("insert", [.wallClock: 1_500_000])])
        report.comparison = BaselineComparison.compare(
            current: report,
            baseline: Fixtures.report([Fixtures.results("insert", [.wallClock: 1_000_000])]),
            baselineName: "main"
        )
        let text = TextReport.render(report)
        #expect(text.contains("== Baseline comparison: main =="))
        let row = text.split(separator: "\n").first { $0.contains("insert") && $0.contains("+50.0%") }
        #expect(row?.contains("REGRESSION") == true)
        #expect(row?.contains("±25%") == true)
        #expect(text.contains("Result: 1 regressions, 0 improvements -> REGRESSION"))
        #expect(MarkdownReport.render(report).contains("| insert | Wall clock | 1.00 ms | 1.50 ms | +50.0% | ±25% | REGRESSION |"))
    }

    @Test func unavailableMetricsAndFailuresAreListed() {
        var report = Fixtures.report([Fixtures.results("a", [.wallClock: 10])])
        report.benchmarks[0].unavailableMetrics = [.mallocCountTotal: "no jemalloc", .bytesAllocated: "no jemalloc"]
        report.failures = [BenchmarkFailure(benchmark: "b", message: "body threw")]
        let text = TextReport.render(report)
        #expect(text.contains("Unavailable: malloc count, bytes allocated (no jemalloc)"))
        #expect(text.contains("== Failures =="))
        #expect(text.contains("b: body threw"))
    }

    @Test func textTableAlignsColumns() {
        let table = TextTable(
            columns: [TextTable.Column(title: "Name", alignment: .left), TextTable.Column(title: "Value", alignment: .right)],
            rows: [["a", "1"], ["longer", "12345"]]
        )
        #expect(table.renderText(indent: "") == "Name    Value\n------  -----\na           1\nlonger  12345\n")
        #expect(table.renderMarkdown() == "| Name | Value |\n| --- | ---: |\n| a | 1 |\n| longer | 12345 |\n")
    }

    @Test func valueFormatting() {
        #expect(ValueFormatter.format(1_500, metric: .wallClock) == "1.50 µs")
        #expect(ValueFormatter.format(250_000_000, metric: .cpuTotal) == "250 ms")
        #expect(ValueFormatter.format(2_048, metric: .bytesAllocated) == "2.00 KiB")
        #expect(ValueFormatter.format(42, metric: .mallocCountTotal) == "42")
        #expect(ValueFormatter.format(12_300, metric: .mallocCountTotal) == "12.3 K")
        #expect(ValueFormatter.format(5_000_000, metric: .throughput) == "5000 K/s")
        #expect(ValueFormatter.ratio(1.5) == "1.50×")
        #expect(ValueFormatter.ratio(nil) == "n/a")
        #expect(ValueFormatter.percent(0.123) == "+12.3%")
        #expect(ValueFormatter.percent(-0.5) == "-50.0%")
    }
}
