/// The exit codes of a benchmark executable.
public enum BenchmarkExitCode: Int32, Sendable {
    /// A plain run, or a comparison within thresholds.
    case success = 0
    /// A usage error, a configuration error, a benchmark that threw or an unusable baseline.
    case failure = 1
    /// At least one regression against the baseline (or a missed target with `--fail-on-missed-targets`).
    case regression = 2
    /// Improvements against the baseline and no regression.
    case improvement = 4

    /// Combines a run's outcome into one code: failure beats regression, which beats improvement.
    public static func combine(
        hadErrors: Bool,
        comparison: ComparisonVerdict?,
        missedTargets: Bool,
        failOnMissedTargets: Bool
    ) -> BenchmarkExitCode {
        if hadErrors { return .failure }
        if comparison == .regression || (missedTargets && failOnMissedTargets) { return .regression }
        if comparison == .improvement { return .improvement }
        return .success
    }
}
