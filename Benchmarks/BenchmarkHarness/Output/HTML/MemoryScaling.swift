import Foundation

/// Benchmarks that ran the same work at several data-set sizes N, found from their names: the
/// suite labels sizes as `10k`, `100k`, `1M` (see Benchmarks/StrataBenchmarks/Sizes.swift).
///
/// Names are compared with every size replaced by a placeholder. Within a group of equal shape,
/// the last size that varies is N; any other varying size is expressed as a fraction of N
/// (`offset 9k … over 10k` and `offset 90k … over 100k` are both `offset 0.9N … over N`), and
/// sizes that never vary (`fetchLimit 100`) stay as they are.
struct MemoryScaling {
    /// One line of a memory-over-N chart: a benchmark shape at several N.
    struct Series {
        /// The name with N in place of the varying size.
        var title: String
        /// (N, benchmark name) in increasing N.
        var points: [(n: Double, benchmark: String)]
    }

    /// Series of pair names with at least two distinct N.
    var series: [Series]
    /// Pair names that ran at one N only.
    var singleSize: [String]

    /// Groups `names` (pair names, or benchmark names of standalone benchmarks).
    init(names: [String]) {
        var shapes: [String: [(name: String, sizes: [Double], texts: [String])]] = [:]
        var order: [String] = []
        var unsized: [String] = []
        for name in names {
            let (shape, sizes, texts) = Self.split(name)
            guard !sizes.isEmpty else {
                unsized.append(name)
                continue
            }
            if shapes[shape] == nil { order.append(shape) }
            shapes[shape, default: []].append((name, sizes, texts))
        }
        var series: [String: Series] = [:]
        var seriesOrder: [String] = []
        var single = unsized
        for shape in order {
            let members = shapes[shape] ?? []
            let positions = members[0].sizes.count
            let varying = (0..<positions).filter { position in Set(members.map { $0.sizes[position] }).count > 1 }
            guard let nPosition = varying.last else {
                single += members.map(\.name)
                continue
            }
            for member in members {
                let n = member.sizes[nPosition]
                var parts: [String] = []
                for (position, text) in member.texts.enumerated() {
                    if position == nPosition {
                        parts.append("N")
                    } else if varying.contains(position) {
                        parts.append(Self.fraction(member.sizes[position], of: n))
                    } else {
                        parts.append(text)
                    }
                }
                let title = Self.join(shape, parts)
                if series[title] == nil { seriesOrder.append(title) }
                series[title, default: Series(title: title, points: [])].points.append((n, member.name))
            }
        }
        self.series = []
        for title in seriesOrder {
            guard var entry = series[title] else { continue }
            entry.points.sort { $0.n < $1.n }
            if Set(entry.points.map(\.n)).count > 1 {
                self.series.append(entry)
            } else {
                single += entry.points.map(\.benchmark)
            }
        }
        singleSize = names.filter { single.contains($0) }
    }

    /// A size token: digits with an optional `k` or `M`, standing alone.
    private static let sizePattern = try? NSRegularExpression(pattern: "(?<![\\w.])(\\d+)([kM]?)(?![\\w.])")

    /// The name with sizes replaced by `\u{1}`, the sizes' values and their original text.
    static func split(_ name: String) -> (shape: String, sizes: [Double], texts: [String]) {
        guard let pattern = sizePattern else { return (name, [], []) }
        let ns = name as NSString
        var shape = ""
        var sizes: [Double] = []
        var texts: [String] = []
        var cursor = 0
        for match in pattern.matches(in: name, range: NSRange(location: 0, length: ns.length)) {
            shape += ns.substring(with: NSRange(location: cursor, length: match.range.location - cursor)) + "\u{1}"
            cursor = match.range.location + match.range.length
            let digits = Double(ns.substring(with: match.range(at: 1))) ?? 0
            let suffix = ns.substring(with: match.range(at: 2))
            sizes.append(digits * (suffix == "k" ? 1_000 : suffix == "M" ? 1_000_000 : 1))
            texts.append(ns.substring(with: match.range))
        }
        shape += ns.substring(from: cursor)
        return (shape, sizes, texts)
    }

    private static func join(_ shape: String, _ parts: [String]) -> String {
        var result = ""
        var index = 0
        for character in shape {
            if character == "\u{1}", index < parts.count {
                result += parts[index]
                index += 1
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func fraction(_ value: Double, of n: Double) -> String {
        guard n > 0 else { return "?" }
        let share = value / n
        if share == 0 { return "0" }
        return String(format: "%.2g", share) + "N"
    }
}
