import StrataLocks

/// A bounded memo of an expensive pure function: ``value(for:compute:)`` returns the value
/// remembered for a key, or computes it, remembers it and returns it. Strata's memos of string
/// folding, decimal parsing and formatting, and compiled regular expressions are instances.
///
/// Thread-safe: use one instance from any thread (the memos are shared by fetches on every
/// context's queue and by SQLite's calls into Strata's functions on any connection's thread).
/// The lock is held only to look up and to insert, never while computing, so two threads that
/// miss the same key may both compute it; the function is pure, so either value is right.
///
/// Bounded: an insertion into a memo holding `capacity` entries first empties it. Clearing when
/// full costs nothing on a hit (no recency to record, unlike a least-recently-used list); a
/// fetch that meets more distinct values than fit would keep missing under either policy.
///
/// Complexity: a hit or a miss is O(1) on average plus hashing the key (and, on a miss, the
/// computation); the insertion that empties a full memo is O(`capacity`).
package final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = StrataLock<[Key: Value]>([:])

    /// The most entries the memo holds.
    package let capacity: Int

    /// Creates an empty memo holding at most `capacity` entries (at least one).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The memoized value for `key`, computing it with `compute` on a miss. A thrown error is
    /// not memoized: the next call computes again.
    package func value<E: Error>(for key: Key, compute: () throws(E) -> Value) throws(E) -> Value {
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let value = try compute()
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = value
        }
        return value
    }

    /// The number of entries held now (at most ``capacity``).
    package var count: Int { entries.withLock { $0.count } }
}
