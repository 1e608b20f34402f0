import StrataProgress

/// Runs the selected entries of a suite and assembles the report (results, ratios, targets, failures).
struct SuiteExecution {
    var suiteName: String
    var entries: [SuiteEntry]
    var relations: [RelationDefinition]
    var registeredNames: Set<String>
    var configurationErrors: [BenchmarkFailure]
    var quick: Bool
    var log: (String) -> Void

    /// Runs everything and returns the report.
    func run() -> BenchmarkRunReport {
        let sources = MeasurementSources()
        let runner = BenchmarkRunner(sources: sources, quick: quick)
        var report = BenchmarkRunReport(suite: suiteName, quick: quick, environment: sources.environment)
        report.failures = configurationErrors
        if let reason = sources.jemalloc.unavailableReason {
            log("note: malloc metrics unavailable: \(reason)")
        }
        if !sources.peakResetSupported {
            log("note: peak resident memory cannot be reset per benchmark; reporting the process peak")
        }

        let total = entries.reduce(0) { $0 + $1.definitions.count }
        var position = 0
        // The "[i/n]" lines are the plain progress; on a terminal a status line adds the ETA.
        let meter = ProgressMeter(lineInterval: nil)
        let started = WallClock.nowNanoseconds()
        defer { meter.finish() }
        var current = ""
        var completed = 0
        func showStatus(_ name: String, iterations: Int = 0) {
            current = name
            let elapsed = Double(WallClock.nowNanoseconds() &- started) / 1e9
            let detail = "now: \(name)" + (iterations > 0 ? ", iteration \(iterations)" : "")
            meter.update(ProgressStatus(label: "benchmarks", done: completed, total: total, unit: "benchmarks", detail: detail, elapsed: elapsed))
        }
        func logStart(_ definition: BenchmarkDefinition) {
            showStatus(definition.name)
            position += 1
            log("[\(position)/\(total)] \(definition.name) ...")
        }
        func record(_ results: BenchmarkResults?, failures: [BenchmarkFailure], position: Int) {
            completed += 1
            for failure in failures {
                log("error: \(failure.benchmark): \(failure.message)")
            }
            report.failures += failures
            guard let results else { return }
            report.benchmarks.append(results)
            let wall = results.p50(.wallClock).map { ", p50 wall clock \(ValueFormatter.format($0, metric: .wallClock))" } ?? ""
            log("[\(position)/\(total)] \(results.name): \(results.iterations) iterations\(wall)")
        }

        let pairRunner = PairRunner(sources: sources, quick: quick)
        // Only a terminal shows iterations; off one the "[i/n]" lines say enough.
        if meter.isTerminal {
            runner.onIteration = { showStatus(current, iterations: $0) }
            pairRunner.onIteration = { showStatus(current, iterations: $0) }
        }
        for entry in entries {
            switch entry {
            case .benchmark(let definition, let targets):
                logStart(definition)
                let (results, failures) = runner.run(definition)
                record(results, failures: failures, position: position)
                for target in targets {
                    if let results {
                        report.targets.append(TargetEvaluator.evaluate(target, subjectName: definition.name, subject: .single(results)))
                    } else {
                        report.targets.append(TargetEvaluator.skipped(target, subjectName: definition.name, reason: "the benchmark failed"))
                    }
                }
            case .pair(let pair):
                showStatus(pair.name)
                position += 2
                log("[\(position - 1)-\(position)/\(total)] \(pair.name): strata and raw interleaved ...")
                let outcome = pairRunner.run(pair)
                record(outcome.strata, failures: outcome.failures, position: position - 1)
                record(outcome.raw, failures: [], position: position)
                report.pairs.append(pairResults(pair, outcome: outcome))
                for target in pair.targets {
                    if let strata = outcome.strata, let raw = outcome.raw {
                        let subject = TargetSubject.comparison(numerator: strata, numeratorLabel: "strata", denominator: raw, denominatorLabel: "raw")
                        report.targets.append(TargetEvaluator.evaluate(target, subjectName: pair.name, subject: subject))
                    } else {
                        report.targets.append(TargetEvaluator.skipped(target, subjectName: pair.name, reason: "the pair failed: \(outcome.failureNote ?? "no results")"))
                    }
                }
            }
        }

        // Relations wholly outside the selection are left out; those with one side missing are reported as skipped.
        let selected = Set(entries.flatMap(\.definitions).map(\.name))
        for relation in relations where selected.contains(relation.numerator) || selected.contains(relation.denominator) {
            evaluate(relation, into: &report)
        }
        return report
    }

    private func pairResults(_ pair: PairDefinition, outcome: PairRunner.Outcome) -> PairResults {
        guard let strata = outcome.strata, let raw = outcome.raw else {
            return PairResults(
                name: pair.name, strataBenchmark: pair.strata.name, rawBenchmark: pair.raw.name, ratios: [:],
                note: "no ratios: \(outcome.failureNote ?? "the pair failed")")
        }
        return PairResults(
            name: pair.name, strataBenchmark: strata.name, rawBenchmark: raw.name,
            ratios: BenchmarkRatio.ratios(numerator: strata, denominator: raw), rows: outcome.rows
        )
    }

    private func evaluate(_ relation: RelationDefinition, into report: inout BenchmarkRunReport) {
        var problems: [String] = []
        for name in [relation.numerator, relation.denominator] where report.results(named: name) == nil {
            if !registeredNames.contains(name) {
                problems.append("no benchmark named \"\(name)\" is registered")
            } else if report.failures.contains(where: { $0.benchmark == name }) {
                problems.append("\"\(name)\" failed")
            } else {
                problems.append("\"\(name)\" was filtered out")
            }
        }
        guard problems.isEmpty, let top = report.results(named: relation.numerator), let bottom = report.results(named: relation.denominator) else {
            let note = "skipped: " + problems.joined(separator: "; ")
            report.relations.append(RelationResults(name: relation.name, numerator: relation.numerator, denominator: relation.denominator, ratios: [:], note: note))
            report.targets += relation.targets.map { TargetEvaluator.skipped($0, subjectName: relation.name, reason: note) }
            return
        }
        report.relations.append(
            RelationResults(
                name: relation.name, numerator: relation.numerator, denominator: relation.denominator,
                ratios: BenchmarkRatio.ratios(numerator: top, denominator: bottom)
            ))
        let subject = TargetSubject.comparison(numerator: top, numeratorLabel: top.name, denominator: bottom, denominatorLabel: bottom.name)
        report.targets += relation.targets.map { TargetEvaluator.evaluate($0, subjectName: relation.name, subject: subject) }
    }
}
