/// Runs one benchmark: set-up, warm-up, measured iterations, tear-down.
final class BenchmarkRunner {
    private let sources: MeasurementSources
    private let quick: Bool

    /// Creates a runner using the probed measurement back-ends.
    init(sources: MeasurementSources, quick: Bool) {
        self.sources = sources
        self.quick = quick
    }

    /// Runs `definition`. Returns its results (nil if set-up or the body threw) and any failures.
    func run(_ definition: BenchmarkDefinition) -> (results: BenchmarkResults?, failures: [BenchmarkFailure]) {
        let configuration = definition.configuration
        let metrics = configuration.orderedMetrics
        let context = BenchmarkContext(
            benchmarkName: definition.name,
            isQuick: quick,
            scalingFactor: configuration.scalingFactor,
            pairSide: definition.pairSide
        )
        var failures: [BenchmarkFailure] = []
        do {
            try definition.setUp?(context)
        } catch {
            failures.append(BenchmarkFailure(benchmark: definition.name, message: "set-up threw: \(error)"))
            return (nil, failures)
        }

        let warmups = configuration.effectiveWarmupIterations(quick: quick)
        let maxIterations = configuration.effectiveMaxIterations(quick: quick)
        let recorder = MeasurementRecorder(sources: sources, metrics: metrics)
        var samples: [BenchmarkMetric: [Double]] = [:]
        var measured = 0
        var invocation = 0
        var bodyFailed = false
        do {
            context.isWarmup = true
            for _ in 0..<warmups {
                context.iteration = invocation
                invocation += 1
                try definition.body(context)
            }
            context.isWarmup = false
            context.recorder = recorder
            let budget = configuration.maxDurationNanoseconds(quick: quick)
            let started = WallClock.nowNanoseconds()
            while measured < maxIterations {
                context.iteration = invocation
                invocation += 1
                recorder.beginIteration()
                do {
                    try definition.body(context)
                } catch {
                    recorder.abandonIteration()
                    throw error
                }
                let measurement = recorder.finishIteration()
                for (metric, value) in measurement.samples(for: metrics, scalingFactor: configuration.scalingFactor) {
                    samples[metric, default: []].append(value)
                }
                measured += 1
                if WallClock.nowNanoseconds() &- started >= budget { break }
            }
        } catch {
            bodyFailed = true
            let phase = context.isWarmup ? "warm-up" : "measured"
            failures.append(BenchmarkFailure(benchmark: definition.name, message: "body threw in \(phase) iteration \(context.iteration): \(error)"))
        }
        context.recorder = nil
        do {
            try definition.tearDown?(context)
        } catch {
            failures.append(BenchmarkFailure(benchmark: definition.name, message: "tear-down threw: \(error)"))
        }
        guard !bodyFailed else { return (nil, failures) }

        var statistics: [BenchmarkMetric: MetricStatistics] = [:]
        var unavailable: [BenchmarkMetric: String] = [:]
        for metric in metrics {
            if let values = samples[metric], let summary = MetricStatistics(samples: values) {
                statistics[metric] = summary
            } else {
                unavailable[metric] = sources.unavailableReason(for: metric) ?? "no valid samples"
            }
        }
        let results = BenchmarkResults(
            name: definition.name,
            pairName: definition.pairName,
            pairSide: definition.pairSide,
            iterations: measured,
            warmupIterations: warmups,
            scalingFactor: configuration.scalingFactor,
            statistics: statistics,
            unavailableMetrics: unavailable
        )
        return (results, failures)
    }
}
