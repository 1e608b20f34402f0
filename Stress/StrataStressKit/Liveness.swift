/// Minimum amounts of work a run must have done for its invariants to prove anything: a run
/// whose workers did nothing (no saves, no fetches, no transfers) passes every invariant
/// vacuously, so each count is required to reach a minimum and the run fails otherwise, naming
/// the count that was too low.
public struct Liveness: Sendable {
    /// One required count.
    public struct Requirement: Sendable {
        /// What was counted ("transfers saved by tellers").
        public var name: String
        /// The count the run reached.
        public var count: Int
        /// The least it must reach.
        public var minimum: Int
        /// Whether the count reached the minimum.
        public var met: Bool { count >= minimum }
    }

    /// The requirements, in the order added.
    public private(set) var requirements: [Requirement] = []

    /// Creates an empty list.
    public init() {}

    /// Requires `count` (named `name`) to be at least `minimum`.
    public mutating func require(_ name: String, _ count: Int, atLeast minimum: Int = 1) {
        requirements.append(Requirement(name: name, count: count, minimum: minimum))
    }

    /// One problem per count below its minimum.
    public var problems: [String] {
        requirements.filter { !$0.met }.map { "too little work: \($0.name) = \($0.count), the minimum is \($0.minimum)" }
    }

    /// The counts, for the report line ("transfers 812 ≥ 1, …").
    public var figures: String {
        requirements.map { "\($0.name) \($0.count) ≥ \($0.minimum)" }.joined(separator: ", ")
    }
}
