/// One benchmark's life: set-up, warm-up and measured invocations, tear-down and the statistics of
/// its samples. The standalone runner drives one session; the pair runner drives two, interleaved.
final class BenchmarkSession {
    /// The outcome of one invocation of the body.
    enum Invocation {
        /// The body returned; the digest of the rows it saw (nil for a standalone benchmark).
        case completed(RowDigest?)
        /// The body threw; the failure is recorded in ``failures``.
        case failed
    }

    /// The benchmark run.
    let definition: BenchmarkDefinition
    /// Warm-up invocations that ran.
    private(set) var warmups = 0
    /// Measured invocations that ran.
    private(set) var measured = 0
    /// Set-up, body and tear-down errors.
    private(set) var failures: [BenchmarkFailure] = []

    private let context: BenchmarkContext
    private let sources: MeasurementSources
    private let recorder: MeasurementRecorder
    private let metrics: [BenchmarkMetric]
    private var samples: [BenchmarkMetric: [Double]] = [:]
    private var invocations = 0
    private var isSetUp = false

    /// Creates a session; nothing runs until ``setUp()``.
    init(definition: BenchmarkDefinition, sources: MeasurementSources, quick: Bool) {
        self.definition = definition
        self.sources = sources
        metrics = definition.configuration.orderedMetrics
        recorder = MeasurementRecorder(sources: sources, metrics: metrics)
        context = BenchmarkContext(
            benchmarkName: definition.name,
            isQuick: quick,
            scalingFactor: definition.configuration.scalingFactor,
            pairSide: definition.pairSide
        )
    }

    /// Runs the set-up; false (and a recorded failure) when it threw.
    func setUp() -> Bool {
        do {
            try definition.setUp?(context)
            isSetUp = true
        } catch {
            failures.append(BenchmarkFailure(benchmark: definition.name, message: "set-up threw: \(error)"))
        }
        return isSetUp
    }

    /// Runs the body once, unmeasured.
    func warmUp() -> Invocation {
        context.isWarmup = true
        context.recorder = nil
        context.iteration = invocations
        invocations += 1
        do {
            let digest = try definition.body(context)
            warmups += 1
            return .completed(digest)
        } catch {
            recordBodyError(error)
            return .failed
        }
    }

    /// Runs the body once and keeps its measurement as one sample of every metric.
    func measure() -> Invocation {
        context.isWarmup = false
        context.recorder = recorder
        context.iteration = invocations
        invocations += 1
        defer { context.recorder = nil }
        recorder.beginIteration()
        let digest: RowDigest?
        do {
            digest = try definition.body(context)
        } catch {
            recorder.abandonIteration()
            recordBodyError(error)
            return .failed
        }
        let measurement = recorder.finishIteration()
        for (metric, value) in measurement.samples(for: metrics, scalingFactor: definition.configuration.scalingFactor) {
            samples[metric, default: []].append(value)
        }
        measured += 1
        return .completed(digest)
    }

    /// Runs the tear-down if the set-up succeeded (also after a failed body).
    func tearDown() {
        guard isSetUp else { return }
        isSetUp = false
        do {
            try definition.tearDown?(context)
        } catch {
            failures.append(BenchmarkFailure(benchmark: definition.name, message: "tear-down threw: \(error)"))
        }
    }

    /// The statistics of the measured samples.
    func results() -> BenchmarkResults {
        var statistics: [BenchmarkMetric: MetricStatistics] = [:]
        var unavailable: [BenchmarkMetric: String] = [:]
        for metric in metrics {
            if let values = samples[metric], let summary = MetricStatistics(samples: values) {
                statistics[metric] = summary
            } else {
                unavailable[metric] = sources.unavailableReason(for: metric) ?? "no valid samples"
            }
        }
        return BenchmarkResults(
            name: definition.name,
            pairName: definition.pairName,
            pairSide: definition.pairSide,
            iterations: measured,
            warmupIterations: warmups,
            scalingFactor: definition.configuration.scalingFactor,
            statistics: statistics,
            unavailableMetrics: unavailable
        )
    }

    private func recordBodyError(_ error: any Error) {
        let phase = context.isWarmup ? "warm-up" : "measured"
        failures.append(BenchmarkFailure(benchmark: definition.name, message: "body threw in \(phase) iteration \(context.iteration): \(error)"))
    }
}
