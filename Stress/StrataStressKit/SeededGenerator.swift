/// A small, fast, seeded random number generator (SplitMix64), so that a stress run or a test
/// replays the same choices from the same seed.
///
/// The sequence depends only on the seed; the interleaving of threads does not, which is why
/// every thread and every asynchronous block gets a generator of its own (see ``derived(_:)``).
/// A value type: copy it to fork a sequence, use it on one thread at a time.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A new independent generator for a sub-task (a thread, an asynchronous block), numbered
    /// `stream`, without advancing this one.
    public func derived(_ stream: UInt64) -> SeededGenerator {
        SeededGenerator(seed: derivedSeed(stream))
    }

    /// The seed of ``derived(_:)`` for `stream`.
    public func derivedSeed(_ stream: UInt64) -> UInt64 {
        var mixer = SeededGenerator(seed: state ^ (stream &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }

    /// True with probability `probability` (0…1).
    public mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A uniformly chosen index in `0..<count` (`count` must be positive).
    public mutating func index(_ count: Int) -> Int {
        Int.random(in: 0..<count, using: &self)
    }

    /// A seed from the clock, for runs that are not given one.
    public static func freshSeed() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next() >> 16  // short enough to type back in
    }
}
