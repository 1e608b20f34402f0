/// Runs the two sides of a pair interleaved: both set-ups, then for each warm-up and each measured
/// iteration the Strata side and then the raw side, so drift (other load, caches, heap growth)
/// hits both; then both tear-downs. After every iteration it compares the two sides' row digests
/// and stops the pair at the first difference.
final class PairRunner {
    /// Measured iterations each side runs at least, whatever its configuration says.
    static let minimumSamples = 5
    /// Warm-up iterations each side runs at least, so the cold run is never measured.
    static let minimumWarmups = 1

    /// What running a pair produced.
    struct Outcome {
        /// The Strata side's results; nil when the pair failed.
        var strata: BenchmarkResults?
        /// The raw side's results; nil when the pair failed.
        var raw: BenchmarkResults?
        /// The rows both sides saw in every iteration; nil when the pair failed.
        var rows: RowDigest?
        /// Why the pair failed, for the report's note; nil when it did not.
        var failureNote: String?
        /// Set-up, body, tear-down and row-check failures.
        var failures: [BenchmarkFailure]
    }

    private let sources: MeasurementSources
    private let quick: Bool
    /// Called after each round (warm-ups included) with the rounds done, for the progress line.
    var onIteration: (Int) -> Void = { _ in }

    /// Creates a runner using the probed measurement back-ends.
    init(sources: MeasurementSources, quick: Bool) {
        self.sources = sources
        self.quick = quick
    }

    /// Runs `pair`.
    func run(_ pair: PairDefinition) -> Outcome {
        let configuration = pair.strata.configuration
        let strata = BenchmarkSession(definition: pair.strata, sources: sources, quick: quick)
        let raw = BenchmarkSession(definition: pair.raw, sources: sources, quick: quick)
        var checker = RowCheck(pairName: pair.name)
        var note: String?

        if strata.setUp(), raw.setUp() {
            let warmups = max(Self.minimumWarmups, configuration.effectiveWarmupIterations(quick: quick))
            let minimum = max(Self.minimumSamples, configuration.effectiveMinIterations)
            let maximum = max(minimum, configuration.effectiveMaxIterations(quick: quick))
            // Each side had its own budget when the sides ran one after the other.
            let budget = configuration.maxDurationNanoseconds(quick: quick).multipliedReportingOverflow(by: 2)
            // `iteration` counts invocations of each side, warm-ups included, like BenchmarkContext.iteration.
            var iteration = 0
            while note == nil, iteration < warmups {
                note = step(strata.warmUp(), raw.warmUp(), phase: "warm-up", iteration: iteration, checker: &checker)
                iteration += 1
                onIteration(iteration)
            }
            let started = WallClock.nowNanoseconds()
            var rounds = 0
            while note == nil, rounds < maximum {
                note = step(strata.measure(), raw.measure(), phase: "measured", iteration: iteration, checker: &checker)
                iteration += 1
                rounds += 1
                onIteration(iteration)
                if rounds >= minimum, budget.overflow == false, WallClock.nowNanoseconds() &- started >= budget.partialValue { break }
            }
        } else {
            note = "set-up failed"
        }
        strata.tearDown()
        raw.tearDown()

        var failures = strata.failures + raw.failures
        if let mismatch = checker.failure { failures.append(mismatch) }
        guard note == nil, failures.isEmpty else {
            return Outcome(failureNote: note ?? "a tear-down failed", failures: failures)
        }
        return Outcome(strata: strata.results(), raw: raw.results(), rows: checker.rows, failures: [])
    }

    /// Checks one round; returns why the pair stops, or nil to go on.
    private func step(_ strata: BenchmarkSession.Invocation, _ raw: BenchmarkSession.Invocation, phase: String, iteration: Int, checker: inout RowCheck) -> String? {
        guard case .completed(let strataRows) = strata else { return "the strata side threw" }
        guard case .completed(let rawRows) = raw else { return "the raw side threw" }
        return checker.compare(strata: strataRows, raw: rawRows, phase: phase, iteration: iteration)
    }
}
