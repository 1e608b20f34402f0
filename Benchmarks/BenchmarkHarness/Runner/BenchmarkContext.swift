/// Passed to a benchmark's set-up, body and tear-down; one instance lives for the whole benchmark.
///
/// By default the whole body is measured. Call ``startMeasurement()`` to exclude the work done before
/// it (the implicit measurement begun when the body started is discarded), and ``stopMeasurement()``
/// to exclude the work after it. Several start/stop pairs in one iteration are summed (peaks take the maximum).
public final class BenchmarkContext {
    /// The benchmark's full name (for a pair side, e.g. `"fetch [strata]"`).
    public let benchmarkName: String
    /// Zero-based count of body invocations so far for this benchmark, warm-up included,
    /// so it can be used to make per-iteration data unique.
    public internal(set) var iteration: Int = 0
    /// Whether the current invocation is a warm-up whose measurements are discarded.
    public internal(set) var isWarmup: Bool = false
    /// Whether the run was started with `--quick`; bodies should shrink their data sets.
    public let isQuick: Bool
    /// Units of work per iteration declared in the configuration.
    public let scalingFactor: Int
    /// Which side of a pair this benchmark is, or nil for a standalone benchmark.
    public let pairSide: PairSide?
    /// Free storage for state created in set-up and used by the body or tear-down.
    public var userInfo: [String: Any] = [:]

    var recorder: MeasurementRecorder?

    init(benchmarkName: String, isQuick: Bool, scalingFactor: Int, pairSide: PairSide?) {
        self.benchmarkName = benchmarkName
        self.isQuick = isQuick
        self.scalingFactor = scalingFactor
        self.pairSide = pairSide
    }

    /// Starts measuring here, discarding what the implicit measurement recorded since the body began.
    /// Does nothing outside a body or when an explicit measurement is already running.
    public func startMeasurement() {
        recorder?.startExplicitSegment()
    }

    /// Stops measuring here; work after this call is not measured unless ``startMeasurement()`` is called again.
    /// Does nothing when no measurement is running.
    public func stopMeasurement() {
        recorder?.stopSegment()
    }

    /// Runs `work` outside the measurement (a check such as computing a ``RowDigest`` from what the
    /// measured work produced), then resumes measuring if a measurement was running.
    public func unmeasured<T>(_ work: () throws -> T) rethrows -> T {
        guard let recorder, recorder.isMeasuring else { return try work() }
        recorder.stopSegment()
        defer { recorder.startExplicitSegment() }
        return try work()
    }

    /// The value set-up stored under `key` in ``userInfo``. Throws ``MissingSetUpError`` when it is
    /// absent or of another type, so a broken set-up fails the benchmark instead of being timed as
    /// an empty body.
    public func require<T>(_ key: String, as type: T.Type = T.self) throws(MissingSetUpError) -> T {
        guard let stored = userInfo[key] else {
            throw MissingSetUpError(benchmark: benchmarkName, key: key, expectedType: String(describing: type), wrongType: false)
        }
        guard let value = stored as? T else {
            throw MissingSetUpError(benchmark: benchmarkName, key: key, expectedType: String(describing: type), wrongType: true)
        }
        return value
    }

    /// Keeps `value` alive and opaque to the optimizer so the work producing it is not removed.
    @inline(never)
    @_optimize(none)
    public func blackHole<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }
}

/// The two sides of a benchmark pair.
public enum PairSide: String, Codable, Sendable, CaseIterable {
    /// The work done through Strata.
    case strata
    /// The same work done with hand-written raw statements: sqlite3, or libpq for the PostgreSQL pairs.
    case raw
}
