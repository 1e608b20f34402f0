/// The baseline comparison as charts: each benchmark's p50 change, and each pair's ratio then and now.
enum BaselineChart {
    /// Change of `metric`'s p50 per benchmark: bars left (better) or right (worse) of zero, coloured by verdict.
    static func changes(_ comparison: BaselineComparison, metric: BenchmarkMetric) -> SVGCanvas? {
        let deltas = comparison.deltas.filter { $0.metric == metric && $0.relativeChange != nil }
        guard !deltas.isEmpty else { return nil }
        let labelWidth = 330.0
        let half = 160.0
        let rowHeight = 16.0
        let top = 26.0
        let limit = max(deltas.compactMap(\.relativeChange).map(abs).max() ?? 0.1, 0.1)
        var canvas = SVGCanvas(
            width: labelWidth + 2 * half + 60, height: top + Double(deltas.count) * rowHeight + 8, title: "\(metric.displayName) p50 change against baseline \(comparison.baselineName)")
        canvas.text("\(metric.displayName) p50, change against baseline \(comparison.baselineName) (right is higher)", x: 0, y: 14, size: 12, bold: true)
        let zero = labelWidth + half
        for (index, delta) in deltas.enumerated() {
            let y = top + Double(index) * rowHeight
            let change = delta.relativeChange ?? 0
            let length = change / limit * half
            let color =
                switch delta.verdict {
                case .regression: ChartPalette.missed
                case .improvement: ChartPalette.met
                case .equal: ChartPalette.skipped
                }
            canvas.text(shorten(delta.benchmark), x: labelWidth - 6, y: y + 11, anchor: "end", size: 10)
            canvas.rect(
                x: length < 0 ? zero + length : zero, y: y + 2, width: max(abs(length), 1), height: rowHeight - 4, fill: color,
                tooltip: "\(delta.benchmark): \(ValueFormatter.percent(delta.relativeChange)) (\(ReportDocument.resultLabel(delta.verdict)))")
            canvas.text(ValueFormatter.percent(delta.relativeChange), x: length < 0 ? zero + 4 : zero + length + 4, y: y + 11, size: 10)
        }
        canvas.line(x1: zero, y1: top - 2, x2: zero, y2: top + Double(deltas.count) * rowHeight, stroke: ChartPalette.axis)
        return canvas
    }

    /// Wall-clock strata ÷ raw per pair in the baseline and now, for pairs present in both.
    static func ratios(current: BenchmarkRunReport, baseline: BenchmarkRunReport, name: String) -> SVGCanvas? {
        let before = Dictionary(baseline.pairs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = current.pairs.compactMap { pair -> (String, Double, Double)? in
            guard let now = pair.ratios[.wallClock], let then = before[pair.name]?.ratios[.wallClock] else { return nil }
            return (pair.name, then, now)
        }
        guard !rows.isEmpty else { return nil }
        let labelWidth = 330.0
        let barArea = 260.0
        let rowHeight = 30.0
        let top = 26.0
        let largest = max(rows.map { max($0.1, $0.2) }.max() ?? 1, 1)
        var canvas = SVGCanvas(width: labelWidth + barArea + 70, height: top + Double(rows.count) * rowHeight + 8, title: "Wall-clock strata ÷ raw, baseline \(name) and now")
        canvas.text("Wall clock strata ÷ raw: baseline \(name) (grey) and now (blue); the line is 1×", x: 0, y: 14, size: 12, bold: true)
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * rowHeight
            canvas.text(shorten(row.0), x: labelWidth - 6, y: y + 16, anchor: "end", size: 10)
            for (offset, value, color) in [(0.0, row.1, ChartPalette.skipped), (13.0, row.2, ChartPalette.strata)] {
                let length = value / largest * barArea
                canvas.rect(x: labelWidth, y: y + offset + 2, width: max(length, 1), height: 11, fill: color, tooltip: "\(row.0): \(ValueFormatter.ratio(value))")
                canvas.text(ValueFormatter.ratio(value), x: labelWidth + length + 4, y: y + offset + 11, size: 10)
            }
        }
        let one = labelWidth + barArea / largest
        canvas.line(x1: one, y1: top - 2, x2: one, y2: top + Double(rows.count) * rowHeight, stroke: ChartPalette.axis, dashed: true)
        return canvas
    }

    /// Long names cut to fit the label column (the tooltip keeps the whole name).
    static func shorten(_ name: String, limit: Int = 58) -> String {
        name.count <= limit ? name : String(name.prefix(limit - 1)) + "…"
    }
}
