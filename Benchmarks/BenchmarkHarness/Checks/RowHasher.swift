/// Combines the values of one row into a hash for ``RowDigest``. Cheap (a multiply and a shift
/// per value, a byte loop for strings) so that both sides of a pair pay little and the same for it.
public struct RowHasher: Sendable {
    @usableFromInline var state: UInt64

    /// A hasher with nothing combined yet.
    @inlinable
    public init() {
        state = 0x9E37_79B9_7F4A_7C15
    }

    /// Combines an integer.
    @inlinable
    public mutating func combine(_ value: Int64) {
        state = (state ^ UInt64(bitPattern: value)) &* 0xBF58_476D_1CE4_E5B9
        state ^= state >> 31
    }

    /// Combines an integer.
    @inlinable
    public mutating func combine(_ value: Int) {
        combine(Int64(value))
    }

    /// Combines a double by its bit pattern (both sides must read the same stored value).
    @inlinable
    public mutating func combine(_ value: Double) {
        combine(Int64(bitPattern: value.bitPattern))
    }

    /// Combines a boolean.
    @inlinable
    public mutating func combine(_ value: Bool) {
        combine(Int64(value ? 1 : 0))
    }

    /// Combines a string by its UTF-8 bytes (FNV-1a).
    @inlinable
    public mutating func combine(_ value: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in value.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        combine(Int64(bitPattern: hash))
    }

    /// The row's hash, mixed so that nearby rows do not cancel in the digest's sum.
    @inlinable
    public var finalized: UInt64 {
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
