/// The closure type of benchmark bodies, set-ups and tear-downs.
public typealias BenchmarkClosure = (BenchmarkContext) throws -> Void

/// One registered benchmark (standalone or a pair side).
struct BenchmarkDefinition {
    var name: String
    var configuration: BenchmarkConfiguration
    var setUp: BenchmarkClosure?
    var tearDown: BenchmarkClosure?
    var body: BenchmarkClosure
    var pairName: String?
    var pairSide: PairSide?
}

/// A registered strata / raw pair.
struct PairDefinition {
    var name: String
    var targets: [BenchmarkTarget]
    var strata: BenchmarkDefinition
    var raw: BenchmarkDefinition
}

/// A registered comparison of two benchmarks.
struct RelationDefinition {
    var name: String
    var numerator: String
    var denominator: String
    var targets: [BenchmarkTarget]
}

/// A registration in run order.
enum SuiteEntry {
    /// A standalone benchmark and its targets.
    case benchmark(BenchmarkDefinition, targets: [BenchmarkTarget])
    /// A pair, run strata then raw.
    case pair(PairDefinition)

    /// The benchmarks of the entry in run order.
    var definitions: [BenchmarkDefinition] {
        switch self {
        case .benchmark(let definition, _): [definition]
        case .pair(let pair): [pair.strata, pair.raw]
        }
    }
}
