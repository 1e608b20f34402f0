import Foundation
import StrataLocks

/// How one read goes: through which query generation, whether it fills the coordinator's row
/// cache, and how old a row-cache answer may be. Every read of a parent store (`ParentStore`)
/// and of a store (`StoreBackend`) takes one, so the mode a read runs in is visible in its
/// path instead of travelling beside it.
///
/// Who honours what:
/// - `generation`: the stores (the SQLite store reads on the generation's held connection,
///   the in-memory store reads its frozen state); the coordinator keeps such reads out of the
///   row cache. Set by `PinnedParentStore`, the parent store of a pinned context.
/// - `rowCache` and `maxAge`: the coordinator, which owns the row cache. Contexts choose
///   them; a parent context passes its child's options on to its own parent.
/// - `watcher`: the stores, which report the rows a fetch reads to it and stop when it is
///   cancelled. Set by an asynchronous fetch; a parent context passes it on.
///
/// A small value (four words), passed by value: making one never allocates.
///
/// A `Sendable` value: use it on any thread.
public struct ReadOptions: Sendable {
    /// The query generation to read through (Core Data's pinned `NSQueryGenerationToken`), or
    /// nil to read the stores' current state. A read through a generation neither answers
    /// from the row cache nor fills it: the cache holds current rows, and a generation's rows
    /// may be older.
    var generation: PinnedStoreStates?
    /// Whether rows this read loads from a store are added to the row cache.
    var rowCache: RowCacheUse
    /// How old (in seconds) a row-cache answer to `snapshots(for:options:)` may be: negative
    /// accepts any age, 0 never answers from the cache (a context's `stalenessInterval`).
    /// Other reads do not consult the cache.
    var maxAge: TimeInterval
    /// Follows the rows a fetch reads and stops the read when cancelled (an asynchronous
    /// fetch's), or nil: only `fetchRows` and `fetchIDs` (and `fetchIDList`) report to it.
    var watcher: ReadWatcher?

    /// Options for a read of the current state that fills the row cache and accepts cached
    /// rows of any age, unless the arguments say otherwise.
    init(generation: PinnedStoreStates? = nil, rowCache: RowCacheUse = .fill, maxAge: TimeInterval = -1, watcher: ReadWatcher? = nil) {
        self.generation = generation
        self.rowCache = rowCache
        self.maxAge = maxAge
        self.watcher = watcher
    }

    /// The current state, filling the row cache, cached rows of any age: what a read asks for
    /// when it has no reason to ask otherwise.
    public static var `default`: ReadOptions { ReadOptions() }

    /// The same options, reading through `generation`.
    func reading(through generation: PinnedStoreStates) -> ReadOptions {
        var options = self
        options.generation = generation
        return options
    }

    /// The state `store` pinned for the query generation this read goes through (what its
    /// ``IncrementalStore/pinGeneration()`` returned), or `nil` to read the current state. A
    /// store that pins states reads through this one.
    public func pinnedState(for store: IncrementalStore) -> (any PinnedStoreState)? {
        generation?.state(for: store)
    }

    /// Whether the rows this read loads go into the row cache (never for a pinned read).
    var fillsRowCache: Bool { rowCache == .fill && generation == nil }

    /// The oldest row-cache answer this read accepts, in seconds (negative: any age; 0: the
    /// cache is not consulted, as for a pinned read).
    var rowCacheMaxAge: TimeInterval { generation == nil ? maxAge : 0 }
}

/// Whether a read adds the rows it loads to the coordinator's row cache.
enum RowCacheUse: Sendable {
    /// Rows loaded are cached (fault firing, fetches of up to 10,000 rows), so other contexts
    /// fire the same objects without I/O.
    case fill
    /// Rows loaded are not cached, though cached rows may still answer: the batches of a
    /// batched walk (`fetchBatched`, `fetch` with `fetchBatchSize`), which read each row once
    /// and release it a batch later, so caching would only add a table entry per row.
    case doNotFill
}

/// A query generation as the stores see it: the state each store holds for it (a read
/// transaction, a frozen copy), filed under the store's `generationKey`. Made by the
/// coordinator when a context pins a generation (`PinnedGeneration` wraps it) and carried by
/// ``ReadOptions/generation``. Thread-safe; releasing it (explicitly or when the last
/// reference goes) releases every state, after which reads through it see the current state.
final class PinnedStoreStates: Sendable {
    private let states: StrataLock<[ObjectIdentifier: any PinnedStoreState]>

    init(_ states: [ObjectIdentifier: any PinnedStoreState]) {
        self.states = StrataLock(states)
    }

    /// The state of the store whose `generationKey` is `key`, if held.
    func state(for key: AnyObject) -> (any PinnedStoreState)? {
        states.withLock { $0[ObjectIdentifier(key)] }
    }

    /// Releases every held state (once).
    func release() {
        let all = states.withLock { current -> [any PinnedStoreState] in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for state in all { state.release() }
    }

    deinit { release() }
}
