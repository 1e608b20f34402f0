import StrataTestSupport

/// Seeded series for the harness: every run with the same seed makes the same choices.
extension SeededRandom {
    /// Creates a generator for one item of a seeded series (save `n` of seed `s`, kill `k`…).
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SeededRandom(seed: seed ^ (stream &* 0x9E37_79B9_7F4A_7C15))
        self.init(seed: mixer.next())
    }
}

/// FNV-1a, 64 bits: the checksum stored with every payload.
public enum Checksum {
    /// The FNV-1a hash of `bytes`, as a signed integer (how it is stored).
    public static func fnv1a<Bytes: Sequence>(_ bytes: Bytes) -> Int64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }
}
