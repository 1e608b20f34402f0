/// A hash table from object IDs to values for the row cache's shards (`RowCache.swift`):
/// open addressing with linear probing over a power-of-two number of buckets, at most 3/4 full,
/// deletion by backward shift (no tombstones).
///
/// The row cache looks up or stores one entry for every row a context reads, so its table's
/// hashing showed in profiles: a `Dictionary` runs SipHash over each ID for every lookup and
/// again for every entry each time it grows. Here an ID's bucket is its key number multiplied
/// by a 64-bit odd constant, the top bits taken (Fibonacci hashing, which spreads consecutive
/// keys, the usual primary keys, evenly), after mixing in a per-table seed. Equal IDs have equal
/// key numbers, so they land in one bucket; `==` decides the rest.
///
/// Not thread-safe: each shard uses its table under its own lock.
final class ObjectIDTable<Value> {
    /// By bucket: the ID stored there, nil for an empty bucket.
    private var ids: UnsafeMutablePointer<ManagedObjectID?>
    /// By bucket: the value, initialized exactly where `ids` holds an ID.
    private var values: UnsafeMutablePointer<Value>
    /// Buckets − 1 (buckets are a power of two).
    private var mask: Int
    /// 64 − log2(buckets): the shift that takes a hash's top bits.
    private var shift: UInt64
    private let seed: UInt64
    /// Entries stored.
    private(set) var count = 0

    private static var minimumBuckets: Int { 8 }

    /// An empty table with room for `minimumCapacity` entries before it grows.
    init(minimumCapacity: Int = 0) {
        let buckets = Self.buckets(for: minimumCapacity)
        ids = .allocate(capacity: buckets)
        ids.initialize(repeating: nil, count: buckets)
        values = .allocate(capacity: buckets)
        mask = buckets - 1
        shift = UInt64(64 - buckets.trailingZeroBitCount)
        seed = UInt64.random(in: .min ... .max)
    }

    deinit {
        // Generic, so each value goes through the runtime's value witnesses: an owner that
        // knows the value type empties the table first (`removeAll()`, as `RowCache` does).
        for bucket in 0...mask where ids[bucket] != nil { (values + bucket).deinitialize(count: 1) }
        ids.deinitializeElementwise(count: mask + 1)
        ids.deallocate()
        values.deallocate()
    }

    /// How many entries fit before the table grows.
    var capacity: Int { (mask + 1) / 4 * 3 }

    /// The number of buckets for `capacity` entries at most 3/4 full.
    private static func buckets(for capacity: Int) -> Int {
        var buckets = minimumBuckets
        while buckets / 4 * 3 < capacity { buckets <<= 1 }
        return buckets
    }

    @inline(__always) private func home(of id: ManagedObjectID) -> Int {
        Int(truncatingIfNeeded: ((UInt64(bitPattern: id.keyNumber) ^ seed) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The bucket holding `id`, or nil.
    @inline(__always) func bucket(of id: ManagedObjectID) -> Int? {
        var bucket = home(of: id)
        while let stored = ids[bucket] {
            if stored == id { return bucket }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Runs `body` on the value in `bucket` (from `bucket(of:)`, with no change to the table
    /// since).
    @inline(__always) func withValue<Result>(inBucket bucket: Int, _ body: (inout Value) throws -> Result) rethrows -> Result {
        try body(&values[bucket])
    }

    /// Runs `body` on the value of `id`, stored first as `makeValue()` when the table has none.
    @inline(__always) func withValue<Result>(for id: ManagedObjectID, default makeValue: @autoclosure () -> Value, _ body: (inout Value) throws -> Result) rethrows -> Result {
        var bucket = home(of: id)
        while let stored = ids[bucket] {
            if stored == id { return try body(&values[bucket]) }
            bucket = (bucket + 1) & mask
        }
        if count + 1 > capacity {
            reserveCapacity(count + 1)
            return try withValue(for: id, default: makeValue(), body)
        }
        (ids + bucket).pointee = id
        (values + bucket).initialize(to: makeValue())
        count += 1
        return try body(&values[bucket])
    }

    /// Stores `value` for `id`, replacing what the table held.
    func set(_ value: Value, for id: ManagedObjectID) {
        withValue(for: id, default: value) { $0 = value }
    }

    /// Removes the entry of `id`; returns its value.
    @discardableResult
    func removeValue(for id: ManagedObjectID) -> Value? {
        guard let bucket = bucket(of: id) else { return nil }
        return remove(bucket)
    }

    /// Empties `hole` and moves later entries of its probe run back into it, so every entry
    /// stays reachable from its home bucket without tombstones.
    private func remove(_ hole: Int) -> Value {
        let removed = (values + hole).move()
        ids[hole] = nil
        count -= 1
        var hole = hole
        var next = (hole + 1) & mask
        while let id = ids[next] {
            let home = home(of: id)
            // The entry at `next` may move to `hole` unless its home lies cyclically in
            // (hole, next]: then it would be placed before its home.
            let homeAfterHole = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !homeAfterHole {
                (ids + hole).pointee = id
                ids[next] = nil
                (values + hole).moveInitialize(from: values + next, count: 1)
                hole = next
            }
            next = (next + 1) & mask
        }
        return removed
    }

    /// Makes room for `minimumCapacity` entries (the buckets at least double when they grow).
    func reserveCapacity(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        rebuild(buckets: max(Self.buckets(for: minimumCapacity), (mask + 1) * 2))
    }

    /// Visits every entry in place, in no particular order.
    func visitEntries(_ body: (ManagedObjectID, inout Value) throws -> Void) rethrows {
        for bucket in 0...mask {
            if let id = ids[bucket] { try body(id, &values[bucket]) }
        }
    }

    /// Keeps only the entries `isIncluded` accepts (it may change them first), in a table with
    /// room for `minimumCapacity` entries or those kept, whichever is more. Asks once per entry.
    func keepOnly(minimumCapacity: Int = 0, _ isIncluded: (ManagedObjectID, inout Value) -> Bool) {
        // Refused entries are released in place first (the probe runs are not used again:
        // every kept entry is placed anew).
        for bucket in 0...mask {
            guard let id = ids[bucket], !isIncluded(id, &values[bucket]) else { continue }
            ids[bucket] = nil
            (values + bucket).deinitialize(count: 1)
            count -= 1
        }
        rebuild(buckets: Self.buckets(for: max(minimumCapacity, count)))
    }

    /// Removes every entry, keeping the buckets.
    func removeAll() {
        for bucket in 0...mask where ids[bucket] != nil {
            ids[bucket] = nil
            (values + bucket).deinitialize(count: 1)
        }
        count = 0
    }

    /// Moves every entry into `buckets` new buckets.
    private func rebuild(buckets: Int) {
        let oldIDs = ids
        let oldValues = values
        let oldBuckets = mask + 1
        ids = .allocate(capacity: buckets)
        ids.initialize(repeating: nil, count: buckets)
        values = .allocate(capacity: buckets)
        mask = buckets - 1
        shift = UInt64(64 - buckets.trailingZeroBitCount)
        for old in 0..<oldBuckets {
            // Moved, not copied: no retain and release of each ID's references.
            guard let id = (oldIDs + old).move() else { continue }
            var bucket = home(of: id)
            while ids[bucket] != nil { bucket = (bucket + 1) & mask }
            (ids + bucket).pointee = id
            (values + bucket).moveInitialize(from: oldValues + old, count: 1)
        }
        // Every bucket was moved out above.
        oldIDs.deallocate()
        oldValues.deallocate()
    }
}
