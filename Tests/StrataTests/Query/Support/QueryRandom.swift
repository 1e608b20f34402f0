import Foundation

/// A small, fast, seeded random number generator (SplitMix64), so a randomized test replays
/// exactly from its seed. Not thread-safe: use one per thread.
struct QueryRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random element of a non-empty array (the first element of an empty one is never asked for).
    mutating func pick<T>(_ items: [T]) -> T {
        items[Int(next() % UInt64(items.count))]
    }

    /// True with probability `probability` (0...1).
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < probability
    }

    /// A random integer in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// The seed to use: the environment variable `name` if it holds a number, else `fallback`.
    static func seed(fromEnvironment name: String, default fallback: UInt64) -> UInt64 {
        if let text = ProcessInfo.processInfo.environment[name], let value = UInt64(text) { return value }
        return fallback
    }
}
