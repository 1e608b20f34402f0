/// What one side of a pair saw: how many rows and an order-independent checksum of their values.
///
/// Each side of a pair returns one from its body; the harness fails the pair when the two sides'
/// digests of the same iteration differ (or when both saw no rows), so a pair cannot compare
/// unequal work or time an empty body. The checksum is a wrapping sum of per-row hashes, so rows
/// may arrive in any order (a set of children, an unsorted fetch).
public struct RowDigest: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Number of rows added.
    public var count: Int
    /// Wrapping sum of the rows' finalized hashes.
    public var checksum: UInt64

    /// An empty digest (no rows).
    public init() {
        count = 0
        checksum = 0
    }

    /// A digest with explicit values (for a side that computes them in one query, and for tests).
    public init(count: Int, checksum: UInt64) {
        self.count = count
        self.checksum = checksum
    }

    /// Adds one row whose values were combined into `row`.
    @inlinable
    public mutating func add(_ row: RowHasher) {
        count &+= 1
        checksum &+= row.finalized
    }

    /// Adds one row made of a single integer value.
    @inlinable
    public mutating func add(_ value: Int64) {
        var row = RowHasher()
        row.combine(value)
        add(row)
    }

    /// Adds the rows of `other` to this digest.
    public mutating func merge(_ other: RowDigest) {
        count &+= other.count
        checksum &+= other.checksum
    }

    /// For example `1000 rows, checksum 0x00000000deadbeef`.
    public var description: String {
        let hex = String(checksum, radix: 16)
        return "\(count) rows, checksum 0x\(String(repeating: "0", count: max(0, 16 - hex.count)))\(hex)"
    }
}
