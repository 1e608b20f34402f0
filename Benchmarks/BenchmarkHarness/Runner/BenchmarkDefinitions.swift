/// The closure type of standalone benchmark bodies, and of set-ups and tear-downs.
public typealias BenchmarkClosure = (BenchmarkContext) throws -> Void

/// The closure type of a pair side's body: it does the work and returns what it saw, which the
/// harness compares with the other side's digest of the same iteration.
public typealias PairBody = (BenchmarkContext) throws -> RowDigest

/// One registered benchmark (standalone or a pair side).
struct BenchmarkDefinition {
    var name: String
    var configuration: BenchmarkConfiguration
    var setUp: BenchmarkClosure?
    var tearDown: BenchmarkClosure?
    /// The body; returns the rows it saw (pair sides) or nil (standalone benchmarks).
    var body: (BenchmarkContext) throws -> RowDigest?
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
    /// A pair, its two sides interleaved iteration by iteration.
    case pair(PairDefinition)

    /// The benchmarks of the entry (strata side first for a pair).
    var definitions: [BenchmarkDefinition] {
        switch self {
        case .benchmark(let definition, _): [definition]
        case .pair(let pair): [pair.strata, pair.raw]
        }
    }
}
