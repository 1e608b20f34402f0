import Foundation

/// A set of benchmarks, Strata / raw sqlite3 pairs and relations, run from an executable's `main`:
///
/// ```swift
/// let suite = BenchmarkSuite(name: "Strata")
/// suite.pair("insert 1k") { context in ... } raw: { context in ... }
/// exit(suite.run())
/// ```
public final class BenchmarkSuite {
    /// The suite's name, printed in reports and stored in baselines.
    public let name: String

    private var entries: [SuiteEntry] = []
    private var relations: [RelationDefinition] = []
    private var benchmarkNames = Set<String>()
    private var pairNames = Set<String>()
    private var relationNames = Set<String>()
    private var registrationErrors: [BenchmarkFailure] = []

    /// Creates an empty suite.
    public init(name: String) {
        self.name = name
    }

    /// Registers a standalone benchmark. `setUp` runs once before the warm-up, `tearDown` once after the
    /// last iteration (even if the body threw); `body` runs once per iteration and is measured whole unless
    /// it calls ``BenchmarkContext/startMeasurement()`` / ``BenchmarkContext/stopMeasurement()``.
    /// A duplicate name is reported as an error at run time and the duplicate is ignored.
    public func benchmark(
        _ name: String,
        configuration: BenchmarkConfiguration = .init(),
        setUp: BenchmarkClosure? = nil,
        tearDown: BenchmarkClosure? = nil,
        targets: [BenchmarkTarget] = [],
        body: @escaping BenchmarkClosure
    ) {
        guard claimBenchmarkName(name) else { return }
        let definition = BenchmarkDefinition(
            name: name, configuration: configuration, setUp: setUp, tearDown: tearDown,
            body: { context in
                try body(context)
                return nil
            })
        entries.append(.benchmark(definition, targets: targets))
    }

    /// Registers a pair: `"<name> [strata]"` and `"<name> [raw]"` with the same configuration, run
    /// interleaved (a warm-up of each, then strata, raw, strata, raw… for at least
    /// ``PairRunner/minimumSamples`` measured iterations each), and the report prints strata p50 ÷
    /// raw p50 for every metric. Each body returns the ``RowDigest`` of the rows it saw; the pair
    /// fails when the two sides' digests of an iteration differ or are both empty.
    /// `setUp` / `tearDown` run once per side (``BenchmarkContext/pairSide`` tells which).
    public func pair(
        _ name: String,
        configuration: BenchmarkConfiguration = .init(),
        targets: [BenchmarkTarget] = [],
        setUp: BenchmarkClosure? = nil,
        tearDown: BenchmarkClosure? = nil,
        strata: @escaping PairBody,
        raw: @escaping PairBody
    ) {
        guard !pairNames.contains(name) else {
            registrationErrors.append(BenchmarkFailure(benchmark: name, message: "a pair named \"\(name)\" is already registered"))
            return
        }
        let strataName = Self.pairMemberName(name, side: .strata)
        let rawName = Self.pairMemberName(name, side: .raw)
        guard !benchmarkNames.contains(strataName), !benchmarkNames.contains(rawName) else {
            registrationErrors.append(BenchmarkFailure(benchmark: name, message: "pair \"\(name)\" clashes with an existing benchmark name"))
            return
        }
        pairNames.insert(name)
        benchmarkNames.insert(strataName)
        benchmarkNames.insert(rawName)
        func side(_ side: PairSide, _ body: @escaping PairBody) -> BenchmarkDefinition {
            BenchmarkDefinition(
                name: Self.pairMemberName(name, side: side), configuration: configuration,
                setUp: setUp, tearDown: tearDown, body: body, pairName: name, pairSide: side
            )
        }
        entries.append(.pair(PairDefinition(name: name, targets: targets, strata: side(.strata, strata), raw: side(.raw, raw))))
    }

    /// Compares two benchmarks (standalone or pair sides, by full name such as `"fetch [strata]"`) after both ran:
    /// ratio = numerator p50 ÷ denominator p50. Skipped with a note when either was filtered out or failed.
    /// Filtering on the relation's name runs both benchmarks.
    public func relation(_ name: String, numerator: String, denominator: String, target: BenchmarkTarget) {
        relation(name, numerator: numerator, denominator: denominator, targets: [target])
    }

    /// Like ``relation(_:numerator:denominator:target:)`` with several targets.
    public func relation(_ name: String, numerator: String, denominator: String, targets: [BenchmarkTarget]) {
        guard relationNames.insert(name).inserted else {
            registrationErrors.append(BenchmarkFailure(benchmark: name, message: "a relation named \"\(name)\" is already registered"))
            return
        }
        relations.append(RelationDefinition(name: name, numerator: numerator, denominator: denominator, targets: targets))
    }

    /// The full name of one side of the pair `name`, e.g. `"fetch [strata]"`.
    public static func pairMemberName(_ name: String, side: PairSide) -> String {
        "\(name) [\(side.rawValue)]"
    }

    /// Parses the command line (`arguments[0]` is the executable, as in `CommandLine.arguments`), runs,
    /// prints the report to standard output and progress to standard error, and returns the exit code
    /// (see ``BenchmarkExitCode``).
    public func run(arguments: [String] = CommandLine.arguments) -> Int32 {
        run(arguments: arguments, output: .process)
    }

    /// The testable body of ``run(arguments:)``.
    func run(arguments: [String], output: ConsoleOutput) -> Int32 {
        let executable = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "benchmarks"
        let options: CommandLineOptions
        let filter: BenchmarkFilter
        do {
            options = try CommandLineOptions.parse(Array(arguments.dropFirst()))
            filter = try BenchmarkFilter(patterns: options.filters)
        } catch {
            output.standardError("error: \(error.message)")
            output.standardError(CommandLineOptions.usage(executable: executable))
            return BenchmarkExitCode.failure.rawValue
        }

        let configurationErrors = registrationErrors + relationErrors()
        let selection = BenchmarkSelection(entries: entries, relations: relations, filter: filter)

        switch options.command {
        case .help:
            output.standardOutput(CommandLineOptions.usage(executable: executable) + "\n")
            return BenchmarkExitCode.success.rawValue
        case .list:
            output.standardOutput(listing(selection: selection, filter: filter))
            return BenchmarkExitCode.success.rawValue
        case .render(let path):
            return ReportFiles.render(jsonPath: path, options: options, output: output)
        case .run, .baselineUpdate, .baselineCompare:
            break
        }

        let store = BaselineStore(directory: options.baselineDirectory)
        var baseline: BenchmarkRunReport?
        if case .baselineCompare(let baselineName) = options.command {
            do {
                baseline = try store.load(baselineName)
            } catch {
                output.standardError("error: \(error.description)")
                return BenchmarkExitCode.failure.rawValue
            }
        }
        guard !selection.entries.isEmpty else {
            output.standardError(entries.isEmpty ? "error: the suite has no benchmarks" : "error: no benchmark matches the filter")
            return BenchmarkExitCode.failure.rawValue
        }

        for failure in configurationErrors {
            output.standardError("error: \(failure.benchmark): \(failure.message)")
        }
        let execution = SuiteExecution(
            suiteName: name,
            entries: selection.entries,
            relations: relations,
            registeredNames: benchmarkNames,
            configurationErrors: configurationErrors,
            quick: options.quick,
            log: output.standardError
        )
        var report = execution.run()
        var hadErrors = !report.failures.isEmpty

        if case .baselineCompare(let baselineName) = options.command, let baseline {
            report.comparison = BaselineComparison.compare(
                current: report, baseline: baseline, baselineName: baselineName,
                configurations: configurations(of: selection)
            )
        }

        if !ReportFiles.write(report, baseline: baseline, options: options, output: output) { hadErrors = true }

        if case .baselineUpdate(let baselineName) = options.command {
            hadErrors = !updateBaseline(baselineName, with: report, store: store, merge: filter.isActive, output: output) || hadErrors
        }

        let code = BenchmarkExitCode.combine(
            hadErrors: hadErrors,
            comparison: report.comparison?.verdict,
            missedTargets: !report.missedTargets.isEmpty,
            failOnMissedTargets: options.failOnMissedTargets
        )
        return code.rawValue
    }

    // MARK: - Helpers

    private func claimBenchmarkName(_ name: String) -> Bool {
        guard benchmarkNames.insert(name).inserted else {
            registrationErrors.append(BenchmarkFailure(benchmark: name, message: "a benchmark named \"\(name)\" is already registered"))
            return false
        }
        return true
    }

    private func relationErrors() -> [BenchmarkFailure] {
        relations.flatMap { relation in
            [relation.numerator, relation.denominator]
                .filter { !benchmarkNames.contains($0) }
                .map { name in
                    let hint = pairNames.contains(name) ? " (\"\(name)\" is a pair: use \"\(Self.pairMemberName(name, side: .strata))\" or \"\(Self.pairMemberName(name, side: .raw))\")" : ""
                    return BenchmarkFailure(benchmark: relation.name, message: "relation refers to unknown benchmark \"\(name)\"\(hint)")
                }
        }
    }

    private func configurations(of selection: BenchmarkSelection) -> [String: BenchmarkConfiguration] {
        var result: [String: BenchmarkConfiguration] = [:]
        for definition in selection.entries.flatMap(\.definitions) {
            result[definition.name] = definition.configuration
        }
        return result
    }

    /// Stores `report` as a baseline (merging into the existing one when only part of the suite ran).
    private func updateBaseline(_ baselineName: String, with report: BenchmarkRunReport, store: BaselineStore, merge: Bool, output: ConsoleOutput) -> Bool {
        var stored = report
        if merge, let existing = try? store.load(baselineName) {
            let fresh = Set(report.benchmarks.map(\.name))
            stored.benchmarks = existing.benchmarks.filter { !fresh.contains($0.name) } + report.benchmarks
            let freshPairs = Set(report.pairs.map(\.name))
            stored.pairs = existing.pairs.filter { !freshPairs.contains($0.name) } + report.pairs
        }
        do {
            try store.save(stored, as: baselineName)
            let path = (try? store.path(for: baselineName)) ?? baselineName
            output.standardError("baseline \"\(baselineName)\" written to \(path) (\(stored.benchmarks.count) benchmarks)")
            return true
        } catch {
            output.standardError("error: \(error.description)")
            return false
        }
    }

    private func listing(selection: BenchmarkSelection, filter: BenchmarkFilter) -> String {
        var lines: [String] = []
        for entry in selection.entries {
            switch entry {
            case .benchmark(let definition, let targets):
                lines.append("benchmark  \(definition.name)\(Self.targetSuffix(targets))")
            case .pair(let pair):
                lines.append("pair       \(pair.name)\(Self.targetSuffix(pair.targets))")
                lines.append("             \(pair.strata.name)")
                lines.append("             \(pair.raw.name)")
            }
        }
        let selectedNames = Set(selection.benchmarkNames)
        for relation in relations
        where filter.matches(relation.name) || (selectedNames.contains(relation.numerator) && selectedNames.contains(relation.denominator)) {
            lines.append("relation   \(relation.name): \(relation.numerator) ÷ \(relation.denominator)\(Self.targetSuffix(relation.targets))")
        }
        if lines.isEmpty { lines.append("(no benchmark matches)") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func targetSuffix(_ targets: [BenchmarkTarget]) -> String {
        targets.isEmpty ? "" : "  [targets: " + targets.map(\.description).joined(separator: "; ") + "]"
    }
}
