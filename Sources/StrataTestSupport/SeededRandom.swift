/// A small, fast, seeded random number generator (SplitMix64) for reproducible property tests:
/// the same seed gives the same sequence on every platform. Not for cryptography. A value
/// type: each copy is its own sequence; use one copy per thread.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random integer in `0..<upperBound` (0 when `upperBound` ≤ 0).
    public mutating func below(_ upperBound: Int) -> Int {
        upperBound <= 0 ? 0 : Int.random(in: 0..<upperBound, using: &self)
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
