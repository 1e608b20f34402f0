/// Every pair's strata ÷ raw ratio of one metric on one scale, coloured by the pair's targets.
enum RatioOverviewChart {
    /// The chart, or nil when no pair has the ratio.
    static func render(_ report: BenchmarkRunReport, metric: BenchmarkMetric = .wallClock) -> SVGCanvas? {
        let rows = report.pairs.compactMap { pair in pair.ratios[metric].map { (pair, $0) } }
        guard !rows.isEmpty else { return nil }
        let labelWidth = 400.0
        let barArea = 300.0
        let rowHeight = 18.0
        let top = 42.0
        let largest = max(rows.map(\.1).filter(\.isFinite).max() ?? 1, 1)
        var canvas = SVGCanvas(
            width: labelWidth + barArea + 170, height: top + Double(rows.count) * rowHeight + 10,
            title: "\(metric.displayName) p50, strata ÷ raw, per pair")
        canvas.text("\(metric.displayName) p50, strata ÷ raw (dashed line: 1×, as fast as raw sqlite3)", x: 0, y: 14, size: 12, bold: true)
        for (index, entry) in [("target met", ChartPalette.met), ("target missed", ChartPalette.missed), ("no target", ChartPalette.strata)].enumerated() {
            let x = Double(index) * 120
            canvas.rect(x: x, y: 22, width: 12, height: 10, fill: entry.1)
            canvas.text(entry.0, x: x + 16, y: 31, size: 10)
        }
        for (index, (pair, ratio)) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            let outcomes = report.targets.filter { $0.subject == pair.name && $0.status != .skipped }
            let color =
                outcomes.isEmpty ? ChartPalette.strata : outcomes.contains { $0.status == .missed } ? ChartPalette.missed : ChartPalette.met
            let length = ratio.isFinite ? ratio / largest * barArea : 0
            let targets = outcomes.map { "\($0.description): \($0.statusLabel)" }.joined(separator: "; ")
            canvas.text(BaselineChart.shorten(pair.name, limit: 70), x: labelWidth - 6, y: y + 12, anchor: "end", size: 10)
            canvas.rect(
                x: labelWidth, y: y + 3, width: max(length, 1), height: rowHeight - 6, fill: color,
                tooltip: "\(pair.name): \(ValueFormatter.ratio(ratio))" + (targets.isEmpty ? "" : " (\(targets))"))
            let demands = BaselineChart.shorten(outcomes.map(\.description).joined(separator: ", "), limit: 30)
            canvas.text(ValueFormatter.ratio(ratio) + (targets.isEmpty ? "" : "  " + demands), x: labelWidth + length + 4, y: y + 12, size: 10)
        }
        let one = labelWidth + barArea / largest
        canvas.line(x1: one, y1: top - 2, x2: one, y2: top + Double(rows.count) * rowHeight, stroke: ChartPalette.axis, dashed: true)
        return canvas
    }
}
