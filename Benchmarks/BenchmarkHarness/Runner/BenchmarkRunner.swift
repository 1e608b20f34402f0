/// Runs one standalone benchmark: set-up, warm-up, measured iterations, tear-down.
final class BenchmarkRunner {
    private let sources: MeasurementSources
    private let quick: Bool
    /// Called after each invocation (warm-ups included) with the invocations done, for the progress line.
    var onIteration: (Int) -> Void = { _ in }

    /// Creates a runner using the probed measurement back-ends.
    init(sources: MeasurementSources, quick: Bool) {
        self.sources = sources
        self.quick = quick
    }

    /// Runs `definition`. Returns its results (nil if set-up or the body threw) and any failures.
    func run(_ definition: BenchmarkDefinition) -> (results: BenchmarkResults?, failures: [BenchmarkFailure]) {
        let configuration = definition.configuration
        let session = BenchmarkSession(definition: definition, sources: sources, quick: quick)
        guard session.setUp() else { return (nil, session.failures) }
        var failed = false
        for _ in 0..<configuration.effectiveWarmupIterations(quick: quick) {
            if case .failed = session.warmUp() {
                failed = true
                break
            }
            onIteration(session.warmups)
        }
        if !failed {
            let budget = configuration.maxDurationNanoseconds(quick: quick)
            let started = WallClock.nowNanoseconds()
            while session.measured < configuration.effectiveMaxIterations(quick: quick) {
                if case .failed = session.measure() {
                    failed = true
                    break
                }
                onIteration(session.warmups + session.measured)
                if session.measured >= configuration.effectiveMinIterations, WallClock.nowNanoseconds() &- started >= budget { break }
            }
        }
        session.tearDown()
        return (failed ? nil : session.results(), session.failures)
    }
}
