/// Thrown by ``BenchmarkContext/require(_:as:)`` when the set-up did not store what a body needs:
/// the benchmark fails instead of timing an empty body.
public struct MissingSetUpError: Error, Sendable, CustomStringConvertible {
    /// The benchmark whose body asked.
    public var benchmark: String
    /// The `userInfo` key that was missing or held another type.
    public var key: String
    /// The type the body expected.
    public var expectedType: String
    /// Whether a value was present but of another type.
    public var wrongType: Bool

    /// Creates the error.
    public init(benchmark: String, key: String, expectedType: String, wrongType: Bool) {
        self.benchmark = benchmark
        self.key = key
        self.expectedType = expectedType
        self.wrongType = wrongType
    }

    /// What was missing, e.g. `missing set-up: userInfo["url"] (URL) was never set`.
    public var description: String {
        let problem = wrongType ? "holds another type" : "was never set"
        return "missing set-up: userInfo[\"\(key)\"] (\(expectedType)) \(problem)"
    }
}
