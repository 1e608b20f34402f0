import Foundation

/// Renders a run report as one self-contained HTML page (inline CSS and SVG, no script) that is
/// also well-formed XML: the pair overview, Strata vs raw percentile bars per pair, memory over
/// N, the baseline comparison, relations, standalone benchmarks and failures.
public enum HTMLReport {
    /// The memory metric charted over N: jemalloc's peak heap growth, else the resident growth.
    static let memoryMetrics: [BenchmarkMetric] = [.peakHeapDelta, .peakMemoryResidentDelta]

    /// The page for `report`; `baseline` (the stored report compared with) adds the ratio-then-and-now chart.
    public static func render(_ report: BenchmarkRunReport, baseline: BenchmarkRunReport? = nil) -> String {
        let document = ReportDocument(report: report)
        var page = HTMLPage(title: document.title)
        page.heading(1, document.title)
        for line in document.header { page.paragraph(line, className: "meta") }
        summary(report, into: &page)
        pairs(report, into: &page)
        memory(report, into: &page)
        if let comparison = report.comparison { baselineSection(comparison, current: report, baseline: baseline, into: &page) }
        standalone(report, into: &page)
        if !report.relations.isEmpty { relations(report, into: &page) }
        if !report.failures.isEmpty {
            page.heading(2, "Failures")
            page.list(report.failures.map { ("\($0.benchmark): \($0.message)", "missed") })
        }
        return page.render()
    }

    /// The charts worth keeping as files (the pair overview, memory over N, the baseline
    /// comparison), as (file name, standalone SVG); `make bench` docs embed these.
    public static func charts(_ report: BenchmarkRunReport, baseline: BenchmarkRunReport? = nil) -> [(name: String, svg: String)] {
        var result: [(String, String)] = []
        if let overview = RatioOverviewChart.render(report) { result.append(("pairs-wall-clock-ratio.svg", overview.render(standalone: true))) }
        for (series, chart) in memoryCharts(report).charts {
            result.append(("memory-over-n-\(slug(series.title)).svg", chart.render(standalone: true)))
        }
        if let comparison = report.comparison {
            if let chart = BaselineChart.changes(comparison, metric: .wallClock) { result.append(("baseline-wall-clock-change.svg", chart.render(standalone: true))) }
            if let baseline, let chart = BaselineChart.ratios(current: report, baseline: baseline, name: comparison.baselineName) {
                result.append(("baseline-ratios.svg", chart.render(standalone: true)))
            }
        }
        return result
    }

    // MARK: - Sections

    private static func summary(_ report: BenchmarkRunReport, into page: inout HTMLPage) {
        page.heading(2, "Summary")
        let met = report.targets.filter { $0.status == .met }.count
        let missed = report.missedTargets.count
        let skipped = report.targets.filter { $0.status == .skipped }.count
        page.paragraph("Benchmarks: \(report.benchmarks.count) completed, \(report.failures.count) failed. Targets: \(met) met, \(missed) missed, \(skipped) skipped.")
        if let chart = RatioOverviewChart.render(report) { page.figure(chart) }
        let missedOutcomes = report.missedTargets
        if !missedOutcomes.isEmpty {
            page.list(missedOutcomes.map { ("MISSED \($0.description) (\($0.subject)): \($0.detail)", "missed") })
        }
    }

    private static func pairs(_ report: BenchmarkRunReport, into page: inout HTMLPage) {
        guard !report.pairs.isEmpty else { return }
        page.heading(2, "Pairs: Strata vs raw sqlite3")
        for pair in report.pairs {
            page.heading(3, pair.name)
            let ratios = ReportDocument.summaryMetrics.compactMap { metric in pair.ratios[metric].map { "\(metric.displayName) \(ValueFormatter.ratio($0))" } }
            if !ratios.isEmpty { page.paragraph("strata ÷ raw, p50: " + ratios.joined(separator: ", ")) }
            if let note = pair.note { page.paragraph(note, className: "missed") }
            if let rows = pair.rows { page.paragraph("rows checked: both sides saw \(rows) in every iteration", className: "meta") }
            let outcomes = report.targets.filter { $0.subject == pair.name }
            if !outcomes.isEmpty { page.list(outcomes.map(targetItem)) }
            guard let strata = report.results(named: pair.strataBenchmark), let raw = report.results(named: pair.rawBenchmark) else { continue }
            for metric in [BenchmarkMetric.wallClock] + memoryMetrics.prefix(1) {
                if let chart = PercentileBarChart.render(pairName: pair.name, metric: metric, strata: strata, raw: raw) { page.figure(chart) }
            }
        }
    }

    private static func memory(_ report: BenchmarkRunReport, into page: inout HTMLPage) {
        let (scaling, charts) = memoryCharts(report)
        page.heading(2, "Memory over N")
        guard let metric = memoryMetrics.first(where: { metric in report.benchmarks.contains { $0.statistics[metric] != nil } }) else {
            page.paragraph("No memory metric was measured in this run.")
            return
        }
        page.paragraph(
            "\(metric.displayName) p50 of benchmarks that ran the same work at several data-set sizes N (found from their names). "
                + "Benchmarks measured at one N only are charted with their pair above.")
        for (_, chart) in charts { page.figure(chart) }
        if charts.isEmpty { page.paragraph("No benchmark in this run was measured at more than one N.") }
        if !scaling.singleSize.isEmpty {
            page.paragraph("Measured at one N only: " + scaling.singleSize.joined(separator: "; ") + ".", className: "meta")
        }
    }

    private static func memoryCharts(_ report: BenchmarkRunReport) -> (scaling: MemoryScaling, charts: [(MemoryScaling.Series, SVGCanvas)]) {
        let names = report.pairs.map(\.name) + standaloneResults(report).map(\.name)
        let scaling = MemoryScaling(names: names)
        guard let metric = memoryMetrics.first(where: { metric in report.benchmarks.contains { $0.statistics[metric] != nil } }) else { return (scaling, []) }
        return (scaling, scaling.series.compactMap { series in MemoryLineChart.render(series, metric: metric, report: report).map { (series, $0) } })
    }

    private static func baselineSection(_ comparison: BaselineComparison, current: BenchmarkRunReport, baseline: BenchmarkRunReport?, into page: inout HTMLPage) {
        page.heading(2, "Baseline comparison: \(comparison.baselineName)")
        if let date = comparison.baselineCreatedAt { page.paragraph("Baseline recorded \(ISO8601DateFormatter().string(from: date)); p50 values compared.", className: "meta") }
        for note in comparison.notes { page.paragraph("Note: \(note)") }
        page.paragraph(
            "\(comparison.regressions.count) regressions, \(comparison.improvements.count) improvements: \(ReportDocument.resultLabel(comparison.verdict))",
            className: comparison.verdict == .regression ? "missed" : "met")
        if let baseline, let chart = BaselineChart.ratios(current: current, baseline: baseline, name: comparison.baselineName) { page.figure(chart) }
        if let chart = BaselineChart.changes(comparison, metric: .wallClock) { page.figure(chart) }
        let rows = comparison.deltas.filter { $0.verdict != .equal }.map { delta in
            [
                delta.benchmark, delta.metric.displayName, ValueFormatter.format(delta.baseline, metric: delta.metric),
                ValueFormatter.format(delta.current, metric: delta.metric), ValueFormatter.percent(delta.relativeChange),
                ReportDocument.resultLabel(delta.verdict),
            ]
        }
        if !rows.isEmpty { page.table(header: ["Benchmark", "Metric", "Baseline", "Current", "Change", "Result"], rows: rows) }
    }

    private static func standalone(_ report: BenchmarkRunReport, into page: inout HTMLPage) {
        let results = standaloneResults(report)
        guard !results.isEmpty else { return }
        page.heading(2, "Other benchmarks")
        let rows = results.map { result in
            [result.name, "\(result.iterations)"]
                + PercentileBarChart.percentiles.map { percentile in result.value(.wallClock, percentile).map { ValueFormatter.format($0, metric: .wallClock) } ?? "n/a" }
        }
        page.table(header: ["Benchmark", "Iterations", "Wall clock p50", "p90", "p99"], rows: rows)
        let outcomes = report.targets.filter { outcome in results.contains { $0.name == outcome.subject } }
        if !outcomes.isEmpty { page.list(outcomes.map(targetItem)) }
    }

    private static func relations(_ report: BenchmarkRunReport, into page: inout HTMLPage) {
        page.heading(2, "Relations")
        let rows = report.relations.map { relation in
            [relation.name, "\(relation.numerator) ÷ \(relation.denominator)", relation.note ?? ValueFormatter.ratio(relation.ratios[.wallClock])]
        }
        page.table(header: ["Relation", "Ratio of", "Wall clock p50 ratio"], rows: rows)
        let outcomes = report.targets.filter { outcome in report.relations.contains { $0.name == outcome.subject } }
        if !outcomes.isEmpty { page.list(outcomes.map(targetItem)) }
    }

    /// The benchmarks that are no side of a pair.
    private static func standaloneResults(_ report: BenchmarkRunReport) -> [BenchmarkResults] {
        let sides = Set(report.pairs.flatMap { [$0.strataBenchmark, $0.rawBenchmark] })
        return report.benchmarks.filter { $0.pairName == nil && !sides.contains($0.name) }
    }

    private static func targetItem(_ outcome: TargetOutcome) -> (String, String) {
        ("\(outcome.statusLabel): \(outcome.description) (\(outcome.detail))", outcome.status.rawValue)
    }

    /// A file-name-safe form of `text`.
    static func slug(_ text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar), scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else if !result.hasSuffix("-") {
                result += "-"
            }
        }
        let trimmed = result.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return String(trimmed.prefix(80))
    }
}
