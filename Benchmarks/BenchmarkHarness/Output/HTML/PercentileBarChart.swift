/// Strata vs raw for one metric of one pair: a p50, p90 and p99 bar for each side, on one scale.
enum PercentileBarChart {
    /// The percentiles drawn, one bar each.
    static let percentiles: [BenchmarkPercentile] = [.p50, .p90, .p99]

    /// The chart of `metric`, or nil when either side did not measure it.
    static func render(pairName: String, metric: BenchmarkMetric, strata: BenchmarkResults, raw: BenchmarkResults) -> SVGCanvas? {
        guard let strataStatistics = strata.statistics[metric], let rawStatistics = raw.statistics[metric] else { return nil }
        let sides: [(PairSide, MetricStatistics)] = [(.strata, strataStatistics), (.raw, rawStatistics)]
        let largest = sides.flatMap { side in percentiles.map { side.1.value($0) } }.filter(\.isFinite).max() ?? 0
        let labelWidth = 110.0
        let valueWidth = 90.0
        let barArea = 360.0
        let barHeight = 13.0
        let gap = 3.0
        let groupGap = 10.0
        let top = 24.0
        let height = top + Double(sides.count) * (Double(percentiles.count) * (barHeight + gap) + groupGap) + 4
        var canvas = SVGCanvas(width: labelWidth + barArea + valueWidth, height: height, title: "\(pairName): \(metric.displayName), strata vs raw")
        canvas.text("\(metric.displayName) (p50, p90, p99; shorter is better)", x: 0, y: 14, size: 12, bold: true)
        var y = top
        for (side, statistics) in sides {
            for (index, percentile) in percentiles.enumerated() {
                let value = statistics.value(percentile)
                let length = largest > 0 && value.isFinite ? max(value / largest * barArea, 1) : 1
                let label = "\(side.rawValue) \(percentile.rawValue)"
                let formatted = ValueFormatter.format(value, metric: metric)
                canvas.text(label, x: labelWidth - 6, y: y + barHeight - 3, anchor: "end")
                // p50 solid, p90 and p99 progressively lighter so the tail reads as a tail.
                let opacity = [1.0, 0.7, 0.45][index]
                canvas.rect(x: labelWidth, y: y, width: length, height: barHeight, fill: ChartPalette.color(side), opacity: opacity, tooltip: "\(label): \(formatted)")
                canvas.text(formatted, x: labelWidth + length + 4, y: y + barHeight - 3)
                y += barHeight + gap
            }
            y += groupGap
        }
        canvas.line(x1: labelWidth, y1: top - 2, x2: labelWidth, y2: y - groupGap, stroke: ChartPalette.axis)
        return canvas
    }
}
