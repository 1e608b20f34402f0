import Foundation

/// A display unit: values are divided by `divisor` and followed by `symbol`.
struct DisplayScale: Equatable {
    /// What a base-unit value is divided by.
    var divisor: Double
    /// The unit printed after the number (may be empty).
    var symbol: String
}

/// Human-readable numbers for reports.
enum ValueFormatter {
    /// The display unit suited to values around `magnitude` of the given kind.
    static func scale(for kind: MetricUnitKind, magnitude: Double) -> DisplayScale {
        let size = magnitude.isFinite ? abs(magnitude) : 0
        switch kind {
        case .nanoseconds:
            if size < 1_000 { return DisplayScale(divisor: 1, symbol: "ns") }
            if size < 1_000_000 { return DisplayScale(divisor: 1_000, symbol: "µs") }
            if size < 1_000_000_000 { return DisplayScale(divisor: 1_000_000, symbol: "ms") }
            return DisplayScale(divisor: 1_000_000_000, symbol: "s")
        case .bytes:
            if size < 1_024 { return DisplayScale(divisor: 1, symbol: "B") }
            if size < 1_048_576 { return DisplayScale(divisor: 1_024, symbol: "KiB") }
            if size < 1_073_741_824 { return DisplayScale(divisor: 1_048_576, symbol: "MiB") }
            return DisplayScale(divisor: 1_073_741_824, symbol: "GiB")
        case .count:
            if size < 10_000 { return DisplayScale(divisor: 1, symbol: "") }
            if size < 10_000_000 { return DisplayScale(divisor: 1_000, symbol: "K") }
            return DisplayScale(divisor: 1_000_000, symbol: "M")
        case .operationsPerSecond:
            if size < 10_000 { return DisplayScale(divisor: 1, symbol: "/s") }
            if size < 10_000_000 { return DisplayScale(divisor: 1_000, symbol: "K/s") }
            return DisplayScale(divisor: 1_000_000, symbol: "M/s")
        }
    }

    /// `value` in `scale`, without the unit, with about three significant digits.
    static func number(_ value: Double, scale: DisplayScale) -> String {
        guard value.isFinite else { return "n/a" }
        let scaled = value / scale.divisor
        let size = abs(scaled)
        if scaled == 0 { return "0" }
        if scale.divisor == 1, scaled == scaled.rounded() { return String(format: "%.0f", scaled) }
        if size >= 100 { return String(format: "%.0f", scaled) }
        if size >= 10 { return String(format: "%.1f", scaled) }
        return String(format: "%.2f", scaled)
    }

    /// `value` of `metric` with a unit chosen for its own size, e.g. `12.3 ms`.
    static func format(_ value: Double, metric: BenchmarkMetric) -> String {
        let scale = scale(for: metric.unitKind, magnitude: value)
        let text = number(value, scale: scale)
        return scale.symbol.isEmpty ? text : "\(text) \(scale.symbol)"
    }

    /// A ratio such as `1.52×`, or `n/a` when undefined.
    static func ratio(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "n/a" }
        return String(format: value >= 100 ? "%.0f×" : "%.2f×", value)
    }

    /// A signed relative change such as `+12.3%`, or `n/a` when undefined.
    static func percent(_ fraction: Double?) -> String {
        guard let fraction, fraction.isFinite else { return "n/a" }
        return String(format: "%+.1f%%", fraction * 100)
    }
}
