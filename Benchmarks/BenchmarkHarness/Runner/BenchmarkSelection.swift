import Foundation

/// Name matching for `--filter`: a name is selected when any expression matches part of it
/// (or when there are no expressions).
struct BenchmarkFilter {
    private let expressions: [NSRegularExpression]

    /// Compiles the patterns; throws for an invalid pattern.
    init(patterns: [String]) throws(CommandLineError) {
        var compiled: [NSRegularExpression] = []
        for pattern in patterns {
            do {
                compiled.append(try NSRegularExpression(pattern: pattern))
            } catch {
                throw CommandLineError("invalid regular expression for --filter: \(pattern)")
            }
        }
        expressions = compiled
    }

    /// Whether filtering is active.
    var isActive: Bool { !expressions.isEmpty }

    /// Whether `name` is selected.
    func matches(_ name: String) -> Bool {
        guard isActive else { return true }
        let range = NSRange(name.startIndex..., in: name)
        return expressions.contains { $0.firstMatch(in: name, range: range) != nil }
    }
}

/// The entries chosen by a filter. A pair runs whole when its name or either side's name matches;
/// a relation whose name matches pulls in both of its benchmarks.
struct BenchmarkSelection {
    /// Selected entries in registration order.
    var entries: [SuiteEntry]

    /// Selects from `entries` using `filter` and the relations' dependencies.
    init(entries all: [SuiteEntry], relations: [RelationDefinition], filter: BenchmarkFilter) {
        guard filter.isActive else {
            entries = all
            return
        }
        var wanted = Set<String>()
        for relation in relations where filter.matches(relation.name) {
            wanted.insert(relation.numerator)
            wanted.insert(relation.denominator)
        }
        entries = all.filter { entry in
            switch entry {
            case .benchmark(let definition, _):
                return filter.matches(definition.name) || wanted.contains(definition.name)
            case .pair(let pair):
                return [pair.name, pair.strata.name, pair.raw.name].contains { filter.matches($0) || wanted.contains($0) }
            }
        }
    }

    /// Names of the selected benchmarks in run order.
    var benchmarkNames: [String] {
        entries.flatMap(\.definitions).map(\.name)
    }
}
