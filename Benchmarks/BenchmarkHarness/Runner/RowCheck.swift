/// Compares the row digests the two sides of a pair returned for the same iteration.
struct RowCheck {
    /// The pair checked.
    let pairName: String
    /// The digest both sides agreed on in the last round.
    private(set) var rows: RowDigest?
    /// The recorded failure, once a round did not match.
    private(set) var failure: BenchmarkFailure?

    /// Creates a check for `pairName`.
    init(pairName: String) {
        self.pairName = pairName
    }

    /// Compares one iteration (numbered as ``BenchmarkContext/iteration``); returns a short note and records a failure when the sides differ or
    /// saw nothing.
    mutating func compare(strata: RowDigest?, raw: RowDigest?, phase: String, iteration: Int) -> String? {
        let strataRows = strata ?? RowDigest()
        let rawRows = raw ?? RowDigest()
        guard strataRows == rawRows else {
            failure = BenchmarkFailure(
                benchmark: pairName,
                message: "the sides saw different rows in \(phase) iteration \(iteration): strata \(strataRows); raw \(rawRows)")
            return "the sides saw different rows"
        }
        guard strataRows.count > 0 else {
            failure = BenchmarkFailure(
                benchmark: pairName,
                message: "both sides saw no rows in \(phase) iteration \(iteration): an empty body measures nothing")
            return "both sides saw no rows"
        }
        rows = strataRows
        return nil
    }
}
