import Foundation

/// Memory over N: the p50 of a memory metric at each N, one line for Strata and one for raw.
enum MemoryLineChart {
    /// The chart of `series`, or nil when no point has the metric.
    static func render(_ series: MemoryScaling.Series, metric: BenchmarkMetric, report: BenchmarkRunReport) -> SVGCanvas? {
        var lines: [(PairSide?, [(n: Double, value: Double)])] = []
        let pairsByName = Dictionary(report.pairs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if series.points.allSatisfy({ pairsByName[$0.benchmark] != nil }) {
            for side in PairSide.allCases {
                let values = series.points.compactMap { point -> (n: Double, value: Double)? in
                    guard let pair = pairsByName[point.benchmark] else { return nil }
                    let name = side == .strata ? pair.strataBenchmark : pair.rawBenchmark
                    guard let value = report.results(named: name)?.p50(metric) else { return nil }
                    return (point.n, value)
                }
                lines.append((side, values))
            }
        } else {
            lines.append((nil, series.points.compactMap { point in report.results(named: point.benchmark)?.p50(metric).map { (point.n, $0) } }))
        }
        let all = lines.flatMap(\.1)
        guard all.count >= 2, let minN = all.map(\.n).min(), let maxN = all.map(\.n).max(), maxN > minN else { return nil }
        let top = max(all.map(\.value).max() ?? 0, 1)
        let left = 80.0
        let plotWidth = 380.0
        let plotHeight = 150.0
        let plotTop = 46.0
        var canvas = SVGCanvas(width: left + plotWidth + 110, height: plotTop + plotHeight + 40, title: "\(series.title): \(metric.displayName) over N")
        canvas.text(BaselineChart.shorten(series.title, limit: 80), x: 0, y: 14, size: 12, bold: true)
        canvas.text("\(metric.displayName) p50 at each N (N on a log scale)", x: 0, y: 30, size: 11, fill: ChartPalette.axis)
        // N on a log scale: the suite's sizes grow tenfold.
        func x(_ n: Double) -> Double { left + (log10(max(n, 1)) - log10(max(minN, 1))) / (log10(maxN) - log10(max(minN, 1))) * plotWidth }
        func y(_ value: Double) -> Double { plotTop + plotHeight - max(value, 0) / top * plotHeight }
        for step in 0...4 {
            let value = top * Double(step) / 4
            canvas.line(x1: left, y1: y(value), x2: left + plotWidth, y2: y(value), stroke: ChartPalette.grid)
            canvas.text(ValueFormatter.format(value, metric: metric), x: left - 6, y: y(value) + 4, anchor: "end", size: 10)
        }
        for n in Set(all.map(\.n)).sorted() {
            canvas.line(x1: x(n), y1: plotTop + plotHeight, x2: x(n), y2: plotTop + plotHeight + 4, stroke: ChartPalette.axis)
            canvas.text("N = \(label(n))", x: x(n), y: plotTop + plotHeight + 17, anchor: "middle", size: 10)
        }
        canvas.line(x1: left, y1: plotTop + plotHeight, x2: left + plotWidth, y2: plotTop + plotHeight, stroke: ChartPalette.axis)
        for (index, (side, points)) in lines.enumerated() {
            let color = side.map(ChartPalette.color) ?? ChartPalette.strata
            canvas.polyline(points.map { (x($0.n), y($0.value)) }, stroke: color)
            for point in points {
                canvas.circle(
                    x: x(point.n), y: y(point.value), radius: 3.5, fill: color, tooltip: "\(side?.rawValue ?? "") N = \(label(point.n)): \(ValueFormatter.format(point.value, metric: metric))")
            }
            let legendY = plotTop + 10 + Double(index) * 16
            canvas.rect(x: left + plotWidth + 16, y: legendY - 9, width: 12, height: 10, fill: color)
            canvas.text(side?.rawValue ?? "benchmark", x: left + plotWidth + 32, y: legendY)
        }
        return canvas
    }

    private static func label(_ n: Double) -> String {
        if n >= 1_000_000, n.truncatingRemainder(dividingBy: 1_000_000) == 0 { return "\(Int(n / 1_000_000))M" }
        if n >= 1_000, n.truncatingRemainder(dividingBy: 1_000) == 0 { return "\(Int(n / 1_000))k" }
        return "\(Int(n))"
    }
}
