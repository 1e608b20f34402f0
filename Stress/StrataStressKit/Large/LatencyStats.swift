import Foundation

/// The latencies of one kind of operation, kept whole (each worker keeps its own, merged at the
/// end), and the rows the operations handled. A value type; not shared between threads.
public struct LatencyStats: Sendable {
    /// Seconds each operation took.
    public private(set) var samples: [Double] = []
    /// Rows (objects) the operations read or wrote.
    public private(set) var rows = 0

    /// Creates an empty record.
    public init() {}

    /// Records one operation of `seconds` that handled `rows` rows.
    public mutating func record(_ seconds: Double, rows: Int = 1) {
        samples.append(seconds)
        self.rows += rows
    }

    /// Times `body` and records it with the rows it returns.
    public mutating func time(_ body: () -> Int) {
        let start = DispatchTime.now()
        let rows = body()
        record(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9, rows: rows)
    }

    /// Adds `other`'s samples and rows.
    public mutating func merge(_ other: LatencyStats) {
        samples += other.samples
        rows += other.rows
    }

    /// How many operations were recorded.
    public var count: Int { samples.count }

    /// The `fraction` quantile (0…1) of the latencies, in seconds (0 when empty): the value at
    /// rank ⌈fraction·n⌉ of the sorted samples.
    public func quantile(_ fraction: Double, sorted: [Double]? = nil) -> Double {
        let ordered = sorted ?? samples.sorted()
        guard !ordered.isEmpty else { return 0 }
        let rank = Int((fraction * Double(ordered.count)).rounded(.up))
        return ordered[min(max(rank, 1), ordered.count) - 1]
    }

    /// One report line: operations, operations and rows per second over `elapsed` seconds, and
    /// the p50, p99 and worst latencies.
    public func line(_ name: String, elapsed: Double) -> String {
        let ordered = samples.sorted()
        let seconds = max(elapsed, 0.001)
        return String(
            format: "%@ %7d ops %9.1f ops/s %11.0f rows/s   p50 %@  p99 %@  max %@",
            name.padding(toLength: 24, withPad: " ", startingAt: 0), count, Double(count) / seconds, Double(rows) / seconds,
            Self.format(quantile(0.5, sorted: ordered)), Self.format(quantile(0.99, sorted: ordered)), Self.format(ordered.last ?? 0))
    }

    /// A duration with a unit that keeps three significant digits or so.
    static func format(_ seconds: Double) -> String {
        let text: String
        if seconds < 1e-3 {
            text = String(format: "%.0f µs", seconds * 1e6)
        } else if seconds < 1 {
            text = String(format: "%.1f ms", seconds * 1e3)
        } else {
            text = String(format: "%.2f s", seconds)
        }
        return text.padding(toLength: 9, withPad: " ", startingAt: 0)
    }
}
