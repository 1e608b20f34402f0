/// What a target is evaluated against.
enum TargetSubject {
    /// A standalone benchmark.
    case single(BenchmarkResults)
    /// A pair (strata ÷ raw) or a relation (numerator ÷ denominator).
    case comparison(numerator: BenchmarkResults, numeratorLabel: String, denominator: BenchmarkResults, denominatorLabel: String)

    /// The results absolute and single-result custom targets look at.
    var primary: BenchmarkResults {
        switch self {
        case .single(let results): results
        case .comparison(let numerator, _, _, _): numerator
        }
    }
}

/// Turns targets into verdicts.
enum TargetEvaluator {
    /// Evaluates `target` for the benchmark, pair or relation called `subjectName`.
    static func evaluate(_ target: BenchmarkTarget, subjectName: String, subject: TargetSubject) -> TargetOutcome {
        let verdict = verdict(for: target, subject: subject)
        return TargetOutcome(
            subject: subjectName,
            description: target.description,
            status: verdict.met ? .met : .missed,
            detail: verdict.detail
        )
    }

    /// An outcome for a target that could not be evaluated.
    static func skipped(_ target: BenchmarkTarget, subjectName: String, reason: String) -> TargetOutcome {
        TargetOutcome(subject: subjectName, description: target.description, status: .skipped, detail: reason)
    }

    private static func verdict(for target: BenchmarkTarget, subject: TargetSubject) -> (met: Bool, detail: String) {
        switch target.kind {
        case .ratio(let bound, let metric, let atMost):
            guard case .comparison(let numerator, let numeratorLabel, let denominator, let denominatorLabel) = subject else {
                return (false, "a ratio target needs a pair or a relation")
            }
            guard let top = numerator.p50(metric), let bottom = denominator.p50(metric) else {
                return (false, "\(metric.displayName.lowercased()) was not measured on both sides")
            }
            let numbers = "\(numeratorLabel) \(ValueFormatter.format(top, metric: metric)) ÷ \(denominatorLabel) \(ValueFormatter.format(bottom, metric: metric))"
            guard let ratio = BenchmarkRatio.ratio(top, bottom) else {
                return (false, "\(numbers): ratio undefined")
            }
            let met = atMost ? ratio <= bound : ratio >= bound
            return (met, "\(numbers) = \(ValueFormatter.ratio(ratio)) (limit \(atMost ? "≤" : "≥") \(ValueFormatter.ratio(bound)))")

        case .absolute(let bound, let metric, let unit, let atMost, let percentile):
            guard let multiplier = metric.unitKind.multiplier(forUnit: unit) else {
                return (false, "unknown unit \"\(unit)\" for \(metric.displayName.lowercased())")
            }
            let results = subject.primary
            guard let value = results.value(metric, percentile) else {
                return (false, "\(metric.displayName.lowercased()) was not measured for \(results.name)")
            }
            let limit = bound * multiplier
            let met = atMost ? value <= limit : value >= limit
            let which = percentile == .p100 ? "worst of \(results.iterations) iterations" : percentile.rawValue
            return (met, "\(results.name): \(which) \(ValueFormatter.format(value, metric: metric)) (limit \(atMost ? "≤" : "≥") \(ValueFormatter.format(limit, metric: metric)))")

        case .custom(_, let check):
            return check(subject.primary)

        case .customComparison(_, let check):
            guard case .comparison(let numerator, _, let denominator, _) = subject else {
                return (false, "a comparison target needs a pair or a relation")
            }
            return check(numerator, denominator)
        }
    }
}
