import Foundation

/// The base unit in which a ``BenchmarkMetric`` stores its values.
public enum MetricUnitKind: String, Codable, Sendable {
    /// Time in nanoseconds.
    case nanoseconds
    /// A dimensionless count.
    case count
    /// A size in bytes.
    case bytes
    /// Units of work per second.
    case operationsPerSecond

    /// The symbol of the base unit, as printed in reports.
    public var baseSymbol: String {
        switch self {
        case .nanoseconds: "ns"
        case .count: ""
        case .bytes: "B"
        case .operationsPerSecond: "/s"
        }
    }

    /// The factor that converts a value written in `unit` into base units, or nil if the unit is unknown.
    ///
    /// Accepted units: `ns`, `us`/`µs`, `ms`, `s` for times; `B`, `KB`/`KiB`, `MB`/`MiB`, `GB`/`GiB`
    /// for sizes (binary multiples, as in the reports); an empty string, `count`, `K`, `M` for counts;
    /// `/s`, `ops/s`, `K/s`, `Kops/s`, `M/s`, `Mops/s` for throughput.
    public func multiplier(forUnit unit: String) -> Double? {
        let trimmed = unit.trimmingCharacters(in: .whitespaces)
        switch self {
        case .nanoseconds:
            switch trimmed {
            case "ns", "nanoseconds": return 1
            case "us", "µs", "μs", "microseconds": return 1_000
            case "ms", "milliseconds": return 1_000_000
            case "s", "sec", "seconds": return 1_000_000_000
            default: return nil
            }
        case .bytes:
            switch trimmed.lowercased() {
            case "b", "byte", "bytes": return 1
            case "k", "kb", "kib": return 1_024
            case "m", "mb", "mib": return 1_048_576
            case "g", "gb", "gib": return 1_073_741_824
            default: return nil
            }
        case .count:
            switch trimmed {
            case "", "count", "counts", "mallocs", "allocations", "x", "×": return 1
            case "K", "k", "thousand": return 1_000
            case "M", "million": return 1_000_000
            default: return nil
            }
        case .operationsPerSecond:
            var symbol = trimmed.lowercased()
            for suffix in ["ops/s", "op/s", "/s"] where symbol.hasSuffix(suffix) {
                symbol.removeLast(suffix.count)
                break
            }
            switch symbol {
            case "": return 1
            case "k": return 1_000
            case "m": return 1_000_000
            default: return nil
            }
        }
    }
}
