import Foundation

/// A format-neutral layout of a run report, rendered by ``TextReport`` and ``MarkdownReport``.
struct ReportDocument {
    /// A piece of a section.
    enum Block {
        /// A table.
        case table(TextTable)
        /// A line of prose.
        case line(String)
        /// A target verdict.
        case target(TargetOutcome)
    }

    /// A titled group of blocks.
    struct Section {
        var title: String
        var blocks: [Block]
    }

    /// The document title.
    var title: String
    /// Lines under the title (mode, environment).
    var header: [String]
    /// The sections in order.
    var sections: [Section]

    /// Lays out `report`: one section per benchmark (pairs and relations followed by their ratios
    /// and targets), then the summary, failures and baseline comparison.
    init(report: BenchmarkRunReport) {
        let dateText = ISO8601DateFormatter().string(from: report.createdAt)
        title = "Strata benchmarks: \(report.suite)"
        header = [
            "\(report.quick ? "Quick" : "Full") run, \(dateText), \(report.environment.hostName), \(report.environment.processorCount) CPUs",
            "jemalloc statistics: \(report.environment.jemallocStatistics); peak resident: \(report.environment.peakResidentReset)",
        ]
        if let fit = report.environment.jemallocExtentFitLog2 {
            header.append("jemalloc lg_extent_max_active_fit: \(fit)\(fit < 16 ? " (below 16: a large fetch takes new pages for what the previous one freed, see docs/benchmarks.md)" : "")")
        }
        if report.environment.jemallocThreadCache == true {
            header.append("jemalloc thread caches on: allocations on other live threads are counted when their caches flush (MALLOC_CONF=tcache:false for exact counts)")
        }
        sections = []

        let pairsByRaw = Dictionary(report.pairs.map { ($0.rawBenchmark, $0) }, uniquingKeysWith: { first, _ in first })
        var printedPairs = Set<String>()

        for results in report.benchmarks {
            var blocks = Self.statisticsBlocks(results)
            blocks += report.targets.filter { $0.subject == results.name }.map(Block.target)
            sections.append(Section(title: results.name, blocks: blocks))
            // A pair's ratios follow its raw side, which runs right after the Strata side.
            if let pair = pairsByRaw[results.name], !printedPairs.contains(pair.name) {
                printedPairs.insert(pair.name)
                sections.append(Self.pairSection(pair, report: report))
            }
        }
        for pair in report.pairs where !printedPairs.contains(pair.name) {
            sections.append(Self.pairSection(pair, report: report))
        }
        for relation in report.relations {
            sections.append(Self.relationSection(relation, report: report))
        }
        sections.append(Self.summarySection(report))
        if !report.failures.isEmpty {
            sections.append(Section(title: "Failures", blocks: report.failures.map { .line("\($0.benchmark): \($0.message)") }))
        }
        if let comparison = report.comparison {
            sections.append(Self.comparisonSection(comparison))
        }
    }

    // MARK: - Sections

    private static func statisticsBlocks(_ results: BenchmarkResults) -> [Block] {
        let warmup = results.warmupIterations == 1 ? "1 warm-up" : "\(results.warmupIterations) warm-ups"
        var blocks: [Block] = [.line("\(results.iterations) iterations (\(warmup)), scaling factor \(results.scalingFactor)")]
        var table = TextTable(
            columns: [TextTable.Column(title: "Metric", alignment: .left), TextTable.Column(title: "Unit", alignment: .left)]
                + BenchmarkPercentile.allCases.map { TextTable.Column(title: $0.rawValue, alignment: .right) })
        for metric in results.measuredMetrics {
            guard let statistics = results.statistics[metric] else { continue }
            // p90 picks a unit that suits the bulk of the row without letting one outlier dominate.
            let scale = ValueFormatter.scale(for: metric.unitKind, magnitude: statistics.p90 != 0 ? statistics.p90 : statistics.p100)
            table.rows.append(
                [metric.displayName, scale.symbol.isEmpty ? "count" : scale.symbol]
                    + BenchmarkPercentile.allCases.map { ValueFormatter.number(statistics.value($0), scale: scale) })
        }
        if !table.rows.isEmpty { blocks.append(.table(table)) }
        var reasons: [String] = []
        var metricsByReason: [String: [String]] = [:]
        for metric in BenchmarkMetric.allCases {
            guard let reason = results.unavailableMetrics[metric] else { continue }
            if metricsByReason[reason] == nil { reasons.append(reason) }
            metricsByReason[reason, default: []].append(metric.displayName.lowercased())
        }
        for reason in reasons {
            let names = metricsByReason[reason, default: []].joined(separator: ", ")
            blocks.append(.line("Unavailable: \(names) (\(reason))"))
        }
        return blocks
    }

    private static func pairSection(_ pair: PairResults, report: BenchmarkRunReport) -> Section {
        var blocks: [Block] = [.line("strata ÷ raw, p50")]
        if let strata = report.results(named: pair.strataBenchmark), let raw = report.results(named: pair.rawBenchmark) {
            blocks.append(.table(ratioTable(numerator: strata, numeratorTitle: "strata p50", denominator: raw, denominatorTitle: "raw p50", ratios: pair.ratios)))
        }
        if let note = pair.note { blocks.append(.line(note)) }
        if let rows = pair.rows { blocks.append(.line("rows checked: both sides saw \(rows) in every iteration")) }
        blocks += report.targets.filter { $0.subject == pair.name }.map(Block.target)
        return Section(title: "Pair: \(pair.name)", blocks: blocks)
    }

    private static func relationSection(_ relation: RelationResults, report: BenchmarkRunReport) -> Section {
        var blocks: [Block] = [.line("\(relation.numerator) ÷ \(relation.denominator), p50")]
        if let top = report.results(named: relation.numerator), let bottom = report.results(named: relation.denominator) {
            blocks.append(.table(ratioTable(numerator: top, numeratorTitle: "numerator p50", denominator: bottom, denominatorTitle: "denominator p50", ratios: relation.ratios)))
        }
        if let note = relation.note { blocks.append(.line(note)) }
        blocks += report.targets.filter { $0.subject == relation.name }.map(Block.target)
        return Section(title: "Relation: \(relation.name)", blocks: blocks)
    }

    private static func ratioTable(
        numerator: BenchmarkResults, numeratorTitle: String,
        denominator: BenchmarkResults, denominatorTitle: String,
        ratios: [BenchmarkMetric: Double]
    ) -> TextTable {
        var table = TextTable(columns: [
            TextTable.Column(title: "Metric", alignment: .left),
            TextTable.Column(title: numeratorTitle, alignment: .right),
            TextTable.Column(title: denominatorTitle, alignment: .right),
            TextTable.Column(title: "ratio", alignment: .right),
        ])
        for metric in BenchmarkMetric.allCases {
            guard let top = numerator.p50(metric), let bottom = denominator.p50(metric) else { continue }
            table.rows.append([
                metric.displayName,
                ValueFormatter.format(top, metric: metric),
                ValueFormatter.format(bottom, metric: metric),
                ValueFormatter.ratio(ratios[metric]),
            ])
        }
        return table
    }

    /// The metrics shown in the pair summary (throughput mirrors wall clock; resident memory is
    /// process-wide and depends on pages the other side left mapped, so the heap peak stands for memory).
    static let summaryMetrics: [BenchmarkMetric] = [.wallClock, .cpuTotal, .mallocCountTotal, .bytesAllocated, .peakHeapDelta]

    private static func summarySection(_ report: BenchmarkRunReport) -> Section {
        var blocks: [Block] = []
        if !report.pairs.isEmpty {
            var table = TextTable(
                columns: [TextTable.Column(title: "Pair (strata ÷ raw)", alignment: .left)]
                    + summaryMetrics.map { TextTable.Column(title: $0.displayName, alignment: .right) }
                    + [TextTable.Column(title: "Targets", alignment: .left)])
            for pair in report.pairs {
                let outcomes = report.targets.filter { $0.subject == pair.name }
                table.rows.append([pair.name] + summaryMetrics.map { ValueFormatter.ratio(pair.ratios[$0]) } + [targetSummary(outcomes)])
            }
            blocks.append(.table(table))
        }
        let met = report.targets.filter { $0.status == .met }.count
        let missed = report.targets.filter { $0.status == .missed }
        let skipped = report.targets.filter { $0.status == .skipped }.count
        blocks.append(.line("Benchmarks: \(report.benchmarks.count) completed, \(report.failures.count) failed"))
        blocks.append(.line("Targets: \(met) met, \(missed.count) MISSED, \(skipped) skipped"))
        blocks += missed.map(Block.target)
        return Section(title: "Summary", blocks: blocks)
    }

    private static func targetSummary(_ outcomes: [TargetOutcome]) -> String {
        guard !outcomes.isEmpty else { return "-" }
        let missed = outcomes.filter { $0.status == .missed }.count
        if missed > 0 { return "\(missed) MISSED" }
        let met = outcomes.filter { $0.status == .met }.count
        return met == outcomes.count ? "all met" : "\(met)/\(outcomes.count) met"
    }

    private static func comparisonSection(_ comparison: BaselineComparison) -> Section {
        var blocks: [Block] = []
        if let date = comparison.baselineCreatedAt {
            blocks.append(.line("Baseline recorded \(ISO8601DateFormatter().string(from: date)); p50 values compared"))
        }
        blocks += comparison.notes.map { .line("Note: \($0)") }
        var table = TextTable(columns: [
            TextTable.Column(title: "Benchmark", alignment: .left),
            TextTable.Column(title: "Metric", alignment: .left),
            TextTable.Column(title: "Baseline", alignment: .right),
            TextTable.Column(title: "Current", alignment: .right),
            TextTable.Column(title: "Change", alignment: .right),
            TextTable.Column(title: "Tolerance", alignment: .right),
            TextTable.Column(title: "Result", alignment: .left),
        ])
        for delta in comparison.deltas {
            table.rows.append([
                delta.benchmark,
                delta.metric.displayName,
                ValueFormatter.format(delta.baseline, metric: delta.metric),
                ValueFormatter.format(delta.current, metric: delta.metric),
                ValueFormatter.percent(delta.relativeChange),
                String(format: "±%.0f%%", delta.threshold * 100),
                resultLabel(delta.verdict),
            ])
        }
        if !table.rows.isEmpty { blocks.append(.table(table)) }
        if !comparison.newBenchmarks.isEmpty {
            blocks.append(.line("Not in baseline: " + comparison.newBenchmarks.joined(separator: ", ")))
        }
        blocks.append(.line("Result: \(comparison.regressions.count) regressions, \(comparison.improvements.count) improvements -> \(resultLabel(comparison.verdict))"))
        return Section(title: "Baseline comparison: \(comparison.baselineName)", blocks: blocks)
    }

    /// The label printed for a comparison verdict.
    static func resultLabel(_ verdict: ComparisonVerdict) -> String {
        switch verdict {
        case .equal: "equal"
        case .regression: "REGRESSION"
        case .improvement: "improvement"
        }
    }
}
