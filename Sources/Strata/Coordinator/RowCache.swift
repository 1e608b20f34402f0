import Foundation
import StrataLocks
import Synchronization

/// The coordinator's row cache: the last row snapshot read from or written to the store for
/// each object, shared by every context of the coordinator.
///
/// An entry serves its snapshot only while some object (in any context) uses it, as Core
/// Data's row cache keeps a row while a context references it. The entry holds the snapshot
/// strongly and tells a used one from an unused one by its reference count: a snapshot only
/// the cache holds is dropped when it is next looked at, and by the purge below. (A weak
/// reference would say the same, but it gives every cached snapshot a side table: one more
/// allocation a row, and every retain and release of the snapshot on the runtime's slow path.)
/// A reference only leaves the cache under its shard's lock, and other holders can only let
/// go, so "only the cache holds it" cannot stop being true behind the lock's back.
///
/// A context reuses a cached snapshot when it is no older than the context's
/// `stalenessInterval`. Thread-safe: the table is split into shards, each behind its own lock.
///
/// Rows stored in batches (a fetch, a read of several rows, a save) are not put in the table
/// at once: they wait as the batch, per inheritance tree, and go into the table when something
/// asks about that tree (a look-up, a save's invalidation) or when too many rows wait. Most
/// fetched rows are never asked for again (their objects fire from their own snapshots), and
/// one append per batch costs less than a table entry per row (perf: storing the rows was an
/// eighth of a fetch of 100 rows). A waiting batch goes in as it would have when it was stored
/// (see `index(_:)`), so every answer is one the table would have given.
final class RowCache: Sendable {
    private struct Entry {
        var snapshot: RowSnapshot? = nil
        /// While a save of the row is under way (and shortly after), snapshots of this version
        /// or older are refused, so a read racing the save cannot put the old row back.
        var floor: Int64 = 0
        var floorExpires: UInt64 = 0

        func refuses(_ candidate: RowSnapshot, now: UInt64) -> Bool {
            floor > 0 && now < floorExpires && candidate.version <= floor
        }

        /// ``refuses(_:now:)`` for a row that waited in a batch: whether the floor was in force
        /// when the row was stored is not known, so any floor counts.
        func refusesWaiting(_ candidate: RowSnapshot) -> Bool {
            floor > 0 && candidate.version <= floor
        }

        /// The snapshot while an object uses it; one that only the cache holds is let go.
        /// Called under the shard's lock.
        mutating func liveSnapshot() -> RowSnapshot? {
            if snapshot != nil && isKnownUniquelyReferenced(&snapshot) { snapshot = nil }
            return snapshot
        }

        /// Whether the entry holds nothing any more: no snapshot in use, no floor in force.
        mutating func isDead(now: UInt64) -> Bool {
            liveSnapshot() == nil && (floor == 0 || now >= floorExpires)
        }
    }

    /// How long a save's floor stays after it was set (a racing read lasts far less).
    static let floorLifetime: UInt64 = 10_000_000_000

    /// What one shard holds, behind its lock.
    private struct ShardState {
        /// By object ID (`ObjectIDTable.swift`: no SipHash per row).
        let entries = ObjectIDTable<Entry>()
        /// By inheritance tree (root layout identifier): a batch request changed rows of the
        /// tree at this time without naming them, so snapshots read before it are refused
        /// (until the floor expires).
        var treeFloors: [ObjectIdentifier: (time: UInt64, expires: UInt64)] = [:]
    }

    private final class Shard: Sendable {
        let state = StrataLock<ShardState>(ShardState())
        let writesSincePurge = Atomic<Int>(0)

        deinit {
            // Releases the entries here, where the table's value type is known: the table's
            // own deinit is generic and destroyed each entry through the runtime's value
            // witnesses (perf: most of a coordinator's teardown after a fetch of 20,000 rows).
            state.withLock { $0.entries.removeAll() }
        }
    }

    private let shards: [Shard]

    /// A batch of rows stored and not yet in the table. A class, so that its rows are held in
    /// one place only: `index(_:)` takes them out and tells the unused ones by their
    /// reference counts, which a copy of the array would raise.
    private final class WaitingBatch: @unchecked Sendable {
        // @unchecked Sendable: `rows` is set at creation, looked at under `waiting`'s lock only
        // (`holdsUnusedRow()`), and taken out once, by whoever took the batch out of `waiting`
        // under that lock.
        var rows: [RowSnapshot]
        init(_ rows: [RowSnapshot]) { self.rows = rows }

        /// Whether some row of the batch is held by nothing but the batch. (Rows whose array
        /// something else still holds are copied first, and then none is.)
        func holdsUnusedRow() -> Bool {
            rows.withUnsafeMutableBufferPointer { buffer in
                buffer.indices.contains { isKnownUniquelyReferenced(&buffer[$0]) }
            }
        }
    }

    /// Batches stored and not yet in the table, by inheritance tree (root layout identifier),
    /// oldest first, with their number of rows.
    private struct WaitingBatches {
        /// A tree whose batches were all taken out may keep its (empty) list, so that the next
        /// batch of the tree reuses the list's storage.
        var byTree: [ObjectIdentifier: [WaitingBatch]] = [:]
        var rowCount = 0
        /// By tree: until when a floor set for one of its rows or for the whole tree may be in
        /// force. A batch of such a tree goes into the table at once, where the floors judge
        /// it as they stand (a floor may expire, and be purged, before a batch waiting behind
        /// it would be judged).
        var floorsUntil: [ObjectIdentifier: UInt64] = [:]

        /// The waiting batches of `tree`, taken out.
        mutating func take(tree: ObjectIdentifier) -> [WaitingBatch] {
            guard let batches = byTree.removeValue(forKey: tree) else { return [] }
            rowCount -= batches.reduce(0) { $0 + $1.rows.count }
            return batches
        }

        /// For each tree, its waiting batches up to the last one that holds a row nothing else
        /// uses, taken out; the batches after it stay, in order. Called under the lock, which
        /// gives it the batches' rows alone (see `WaitingBatch`).
        mutating func takeThroughLastUnused() -> [WaitingBatch] {
            var taken: [WaitingBatch] = []
            // The lists are changed in place, by index: iterating the dictionary while setting
            // its values would copy it (perf: a copy of the dictionary on every `reset()`).
            var index = byTree.values.startIndex
            while index != byTree.values.endIndex {
                if let last = byTree.values[index].lastIndex(where: { $0.holdsUnusedRow() }) {
                    do {
                        let through = byTree.values[index][...last]
                        taken.append(contentsOf: through)
                        rowCount -= through.reduce(0) { $0 + $1.rows.count }
                    }
                    byTree.values[index].removeSubrange(...last)
                }
                byTree.values.formIndex(after: &index)
            }
            return taken
        }

        /// Every waiting batch, taken out (the floors' record stays).
        mutating func takeAll() -> [WaitingBatch] {
            let all = byTree.values.flatMap { $0 }
            byTree = [:]
            rowCount = 0
            return all
        }
    }

    private let waiting = StrataLock<WaitingBatches>(WaitingBatches())
    /// `waiting.rowCount`, readable without the lock: a look-up with nothing waiting (the
    /// usual case once the rows went in) skips the lock.
    private let waitingRowCount = Atomic<Int>(0)

    /// Rows that may wait before every batch goes into the table: twice the largest batch a
    /// fetch stores (`PersistentStoreCoordinator.rowCacheFetchLimit`), so waiting rows hold at
    /// most that many snapshots alive beyond what the table holds.
    static let waitingRowLimit = 20_000

    /// A cache split into `shardCount` shards (1…256).
    init(shardCount: Int = 8) {
        shards = (0..<min(256, max(1, shardCount))).map { _ in Shard() }
    }

    /// The inheritance tree of a row (the key of its waiting batches).
    @inline(__always) private static func tree(of id: ManagedObjectID) -> ObjectIdentifier {
        id.entity.layout.rootIdentifier
    }

    /// The inheritance trees of `ids`; a run of one entity's IDs looks its tree up once.
    private static func trees(of ids: some Sequence<ManagedObjectID>) -> Set<ObjectIdentifier> {
        var trees = Set<ObjectIdentifier>()
        var lastEntity: ObjectIdentifier?
        for id in ids where ObjectIdentifier(id.entity) != lastEntity {
            lastEntity = ObjectIdentifier(id.entity)
            trees.insert(tree(of: id))
        }
        return trees
    }

    /// The shard of a row: its key's low bits. Equal IDs have equal keys, and the key needs no
    /// hashing (the shard's table hashes the ID once).
    @inline(__always) private func shardIndex(for id: ManagedObjectID) -> Int {
        Int(truncatingIfNeeded: UInt64(bitPattern: id.keyNumber) % UInt64(shards.count))
    }

    private func shard(for id: ManagedObjectID) -> Shard {
        shards[shardIndex(for: id)]
    }

    /// The cached snapshot of `id` no older than `maxAge` seconds (negative: any age; 0: none).
    func snapshot(for id: ManagedObjectID, maxAge: TimeInterval) -> RowSnapshot? {
        if maxAge == 0 { return nil }
        if waitingRowCount.load(ordering: .relaxed) > 0 { indexWaitingRows(ofTree: Self.tree(of: id)) }
        return indexedSnapshot(for: id, maxAge: maxAge)
    }

    /// ``snapshot(for:maxAge:)`` of each of `ids`, in order, handed to `body`: the waiting rows
    /// of their trees go into the table once, not once per ID.
    func snapshots(for ids: [ManagedObjectID], maxAge: TimeInterval, _ body: (ManagedObjectID, RowSnapshot?) -> Void) {
        if maxAge != 0 { indexWaitingRows(ofTreesOf: ids) }
        for id in ids { body(id, maxAge == 0 ? nil : indexedSnapshot(for: id, maxAge: maxAge)) }
    }

    /// The cached snapshot of `id`, once the waiting rows of its tree are in the table.
    private func indexedSnapshot(for id: ManagedObjectID, maxAge: TimeInterval) -> RowSnapshot? {
        let cached = shard(for: id).state.withLock { state -> RowSnapshot? in
            guard let bucket = state.entries.bucket(of: id) else { return nil }
            return state.entries.withValue(inBucket: bucket) { $0.liveSnapshot() }
        }
        guard let snapshot = cached else { return nil }
        return snapshot.isFresh(stalenessInterval: maxAge) ? snapshot : nil
    }

    /// Records snapshots (newer versions replace older ones). One row goes into the table at
    /// once; several wait as a batch of their tree until it is asked about (see the type's
    /// comment).
    func store(_ snapshots: [RowSnapshot]) {
        guard let first = snapshots.first else { return }
        if snapshots.count == 1 {
            if waitingRowCount.load(ordering: .relaxed) > 0 { indexWaitingRows(ofTree: Self.tree(of: first.objectID)) }
            insert(snapshots, count: 1, into: shard(for: first.objectID), waited: false)
            return
        }
        // A batch mostly holds one entity's rows: the tree is looked up again only where the
        // entity changes.
        let tree = Self.tree(of: first.objectID)
        var lastEntity = ObjectIdentifier(first.objectID.entity)
        for snapshot in snapshots where ObjectIdentifier(snapshot.objectID.entity) != lastEntity {
            lastEntity = ObjectIdentifier(snapshot.objectID.entity)
            if Self.tree(of: snapshot.objectID) != tree {
                // Rows of several trees: one batch per tree.
                var byTree: [ObjectIdentifier: [RowSnapshot]] = [:]
                for row in snapshots { byTree[Self.tree(of: row.objectID), default: []].append(row) }
                for (tree, rows) in byTree { wait(rows, tree: tree) }
                return
            }
        }
        wait(snapshots, tree: tree)
    }

    /// Adds a batch of one tree to the waiting rows. When too many would wait, the batches
    /// already waiting go into the table first (not this one: its caller still holds it, so
    /// its unused rows could not be told apart).
    private func wait(_ rows: [RowSnapshot], tree: ObjectIdentifier) {
        var underFloor = false
        let overflow = waiting.withLock { state -> [WaitingBatch] in
            if let until = state.floorsUntil[tree] {
                if RowSnapshot.now() < until {
                    underFloor = true
                    let earlier = state.take(tree: tree)
                    waitingRowCount.store(state.rowCount, ordering: .relaxed)
                    return earlier
                }
                state.floorsUntil[tree] = nil
            }
            var overflow: [WaitingBatch] = []
            if state.rowCount + rows.count > Self.waitingRowLimit {
                overflow = state.takeAll()
            }
            state.byTree[tree, default: []].append(WaitingBatch(rows))
            state.rowCount += rows.count
            waitingRowCount.store(state.rowCount, ordering: .relaxed)
            return overflow
        }
        if !overflow.isEmpty { index(overflow) }
        if underFloor { storeNow(rows, waited: false) }
    }

    /// Notes that floors of `trees` may be in force until `expires`, and takes their waiting
    /// batches out, in one step: a batch stored after this goes into the table at once.
    private func noteFloors(ofTrees trees: Set<ObjectIdentifier>, until expires: UInt64) -> [WaitingBatch] {
        waiting.withLock { state in
            var taken: [WaitingBatch] = []
            for tree in trees {
                state.floorsUntil[tree] = max(state.floorsUntil[tree] ?? 0, expires)
                taken += state.take(tree: tree)
            }
            waitingRowCount.store(state.rowCount, ordering: .relaxed)
            return taken
        }
    }

    /// Puts the waiting batches of `tree` into the table (before anything reads or changes the
    /// tree's entries).
    private func indexWaitingRows(ofTree tree: ObjectIdentifier) {
        indexWaitingBatches { $0.take(tree: tree) }
    }

    /// Puts the waiting batches of the trees of `ids` into the table.
    private func indexWaitingRows(ofTreesOf ids: [ManagedObjectID]) {
        guard waitingRowCount.load(ordering: .relaxed) > 0 else { return }
        for tree in Self.trees(of: ids) { indexWaitingRows(ofTree: tree) }
    }

    /// Lets go of the waiting rows no object uses any more: the waiting batches of each tree up
    /// to the last one holding such a row go into the table now (see `index(_:)`, which leaves
    /// unused rows out), oldest first; the batches after it, all of whose rows are in use, keep
    /// waiting. A context's `reset()` calls it after letting go of its objects: their rows
    /// would otherwise stay alive until enough other rows wait (`waitingRowLimit`), and the
    /// rows of objects the app still holds do not take table entries for it. Thread-safe.
    func settleWaitingRows() {
        indexWaitingBatches { $0.takeThroughLastUnused() }
    }

    /// Puts every waiting batch into the table.
    private func indexAllWaitingRows() {
        indexWaitingBatches { $0.takeAll() }
    }

    /// Puts the waiting batches `take` takes out (under the lock) into the table; nothing when
    /// no row waits.
    private func indexWaitingBatches(taking take: (inout WaitingBatches) -> [WaitingBatch]) {
        guard waitingRowCount.load(ordering: .relaxed) > 0 else { return }
        let taken = waiting.withLock { state -> [WaitingBatch] in
            let taken = take(&state)
            waitingRowCount.store(state.rowCount, ordering: .relaxed)
            return taken
        }
        if !taken.isEmpty { index(taken) }
    }

    /// Puts waiting batches into the table, oldest first, as they would have gone in when they
    /// were stored. A batch waits only while no floor of its tree is in force (see
    /// `WaitingBatches.floorsUntil`), and anything that sets a floor first takes the waiting
    /// batches of its tree out (a save puts them in, a batch request drops them), so a floor
    /// never meets a row that waited behind it. Two differences, both of which only leave a
    /// row out (a later read then goes to the store): a floor refuses a row whatever its age;
    /// and a row no object uses any more is left out unless the table has an entry for it (the
    /// table would have dropped it unread).
    private func index(_ batches: [WaitingBatch]) {
        // Whether any shard has an entry, asked once and only for a batch whose rows are all
        // unused: then, with an empty table, none of them can go in (the usual case of a
        // `reset()` after a small fetch, see `settleWaitingRows()`).
        var tableHasEntries: Bool?
        for batch in batches {
            // Taken out of the batch, so that nothing but `rows` holds them: the rows nothing
            // else uses are then told apart by their reference counts. (Rows whose array
            // something else still holds are copied here, and all of them count as used.)
            var rows: [RowSnapshot] = []
            swap(&rows, &batch.rows)
            guard !rows.isEmpty else { continue }
            let anyUsed = rows.withUnsafeMutableBufferPointer { buffer in
                buffer.indices.contains { !isKnownUniquelyReferenced(&buffer[$0]) }
            }
            if !anyUsed {
                if tableHasEntries == nil { tableHasEntries = shards.contains { $0.state.withLock { $0.entries.count > 0 } } }
                // Dropped without building `unused` (perf: its allocation was a sixth of this
                // step on a `reset()` after a fetch of 100 rows).
                if tableHasEntries == false { continue }
            }
            let unused = rows.withUnsafeMutableBufferPointer { buffer in
                buffer.indices.map { isKnownUniquelyReferenced(&buffer[$0]) }
            }
            storeNow(rows, waited: true, unused: unused)
            tableHasEntries = nil
        }
    }

    /// Puts rows (at least one) into the table now: the rows of a waiting batch (`waited`,
    /// `unused`: see `index(_:)`), or a batch stored while a floor of its tree may be in force.
    private func storeNow(_ snapshots: [RowSnapshot], waited: Bool, unused: [Bool] = []) {
        let usedCount = waited ? unused.reduce(0) { $1 ? $0 : $0 + 1 } : snapshots.count
        if shards.count == 1 || snapshots.count == 1 {
            // One shard to visit: no shard numbers.
            insert(snapshots, count: snapshots.count, into: shard(for: snapshots[0].objectID), waited: waited, unused: unused, usedCount: usedCount)
            return
        }
        // Each row's shard number, then one pass per shard that has rows: no per-shard arrays
        // (and no retain of every snapshot to fill them).
        var counts = [Int](repeating: 0, count: shards.count)
        var usedCounts = [Int](repeating: 0, count: shards.count)
        let shardOf = [UInt8](unsafeUninitializedCapacity: snapshots.count) { buffer, initialized in
            for (index, snapshot) in snapshots.enumerated() {
                let shard = shardIndex(for: snapshot.objectID)
                buffer[index] = UInt8(truncatingIfNeeded: shard)
                counts[shard] += 1
                if !waited || !unused[index] { usedCounts[shard] += 1 }
            }
            initialized = snapshots.count
        }
        for (index, count) in counts.enumerated() where count > 0 {
            insert(
                snapshots, count: count, into: shards[index], waited: waited, unused: unused, usedCount: usedCounts[index],
                only: (shardOf, UInt8(truncatingIfNeeded: index)))
        }
    }

    /// Inserts the `count` snapshots of `snapshots` that belong to `shard`: all of them, or
    /// those whose number in `only.shardOf` is `only.shard`. `waited`: the rows come from a
    /// waiting batch, whose floors and unused rows (`usedCount` of them used) `index(_:)`
    /// describes.
    private func insert(
        _ snapshots: [RowSnapshot], count: Int, into shard: Shard, waited: Bool, unused: [Bool] = [], usedCount: Int = 0,
        only: (shardOf: [UInt8], shard: UInt8)? = nil
    ) {
        let written = shard.writesSincePurge.wrappingAdd(count, ordering: .relaxed).newValue
        // The clock is read only when something needs it (floors, a purge): a fault firing
        // alone stores one snapshot, and a clock reading was a tenth of that.
        var now: UInt64?
        shard.state.withLock { state in
            // A waiting row meets every tree floor, expired or not (see `index(_:)`).
            if !waited && !state.treeFloors.isEmpty { Self.expireTreeFloors(&state, now: Self.time(&now)) }
            // An unused waiting row only changes an entry already there: none to look for in an
            // empty table.
            let probesUnused = state.entries.count > 0
            // Room for every new entry at once: one resize at most, not one per doubling
            // (nothing happens when the table has it).
            state.entries.reserveCapacity(state.entries.count + (waited ? usedCount : count))
            snapshots.withUnsafeBufferPointer { rows in
                for index in rows.indices {
                    if let only, only.shardOf[index] != only.shard { continue }
                    let isUnused = waited && unused[index]
                    if isUnused && !probesUnused { continue }
                    let snapshot = rows[index]
                    if !state.treeFloors.isEmpty, let floor = state.treeFloors[snapshot.objectID.entity.layout.rootIdentifier], snapshot.fetchedAt < floor.time {
                        continue  // read before a batch request changed its tree
                    }
                    if isUnused {
                        // Unused: only an entry already there takes it (it replaces an older row).
                        if let bucket = state.entries.bucket(of: snapshot.objectID) {
                            state.entries.withValue(inBucket: bucket) { Self.update(&$0, with: snapshot, waited: true, now: &now) }
                        }
                    } else {
                        // One hash lookup per row: the entry is changed in place (a row not
                        // cached yet gets a new entry holding its snapshot).
                        state.entries.withValue(for: snapshot.objectID, default: Entry()) { Self.update(&$0, with: snapshot, waited: waited, now: &now) }
                    }
                }
            }
            // Drop entries whose snapshots nothing else uses, once half the table (or 1,024
            // rows, whichever is more) was written since the last pass: amortised O(1) per
            // write, and the table stays within the entries in use plus what was written since
            // the last pass, even when every write adds a new row.
            if written > max(1_024, state.entries.count / 2) {
                Self.purge(&state, now: Self.time(&now))
                shard.writesSincePurge.store(0, ordering: .relaxed)
            }
        }
    }

    /// Drops the entries that hold nothing any more (their unused snapshots go with them).
    private static func purge(_ state: inout ShardState, now: UInt64) {
        var dead: [ManagedObjectID] = []
        state.entries.visitEntries { id, entry in
            if entry.isDead(now: now) { dead.append(id) }
        }
        if dead.count * 4 > state.entries.count {
            // Many: one new, smaller table, with room for the writes until the next pass (a
            // table just big enough would grow, rehashing every entry, on its next insert).
            let live = state.entries.count - dead.count
            state.entries.keepOnly(minimumCapacity: live + max(1_024, live / 2) + 1) { _, entry in
                entry.snapshot != nil || entry.floor > 0 && now < entry.floorExpires
            }
        } else {
            for id in dead { state.entries.removeValue(for: id) }
        }
    }

    private static func expireTreeFloors(_ state: inout ShardState, now: UInt64) {
        if state.treeFloors.values.contains(where: { $0.expires <= now }) {
            state.treeFloors = state.treeFloors.filter { $0.value.expires > now }
        }
    }

    /// After a batch request changed rows of the inheritance trees `roots` (root layout
    /// identifiers) without naming them: drops every cached snapshot of those trees read before
    /// `time`, and for a while refuses such snapshots, so reads racing the request cannot
    /// cache old rows. O(cached entries), whatever the number of rows changed.
    func invalidateTrees(_ roots: Set<ObjectIdentifier>, readBefore time: UInt64) {
        guard !roots.isEmpty else { return }
        let expires = RowSnapshot.now() &+ Self.floorLifetime
        // The trees' waiting rows are dropped (a row the cache does not hold is read again from
        // the store): the request may have changed any of them.
        let dropped = noteFloors(ofTrees: roots, until: expires)
        withExtendedLifetime(dropped) {}
        for shard in shards {
            shard.state.withLock { state in
                for root in roots { state.treeFloors[root] = (time, expires) }
                state.entries.keepOnly { id, entry in
                    guard roots.contains(id.entity.layout.rootIdentifier) else { return true }
                    guard let snapshot = entry.snapshot else { return entry.floor > 0 }
                    return snapshot.fetchedAt >= time
                }
            }
        }
    }

    /// `now`, read from the clock the first time it is asked for.
    @inline(__always) private static func time(_ now: inout UInt64?) -> UInt64 {
        if let now { return now }
        let time = RowSnapshot.now()
        now = time
        return time
    }

    @inline(__always)
    private static func update(_ entry: inout Entry, with snapshot: RowSnapshot, waited: Bool, now: inout UInt64?) {
        if let current = entry.liveSnapshot(), current.version > snapshot.version { return }
        // A row of a waiting batch meets any floor, expired or not (see `index(_:)`).
        if entry.floor > 0 && (waited ? entry.refusesWaiting(snapshot) : entry.refuses(snapshot, now: time(&now))) { return }
        // The floor of a recent save stays: the saved row's snapshot (stored here by the save)
        // may be released before a read that began before the save returns, and that read's
        // older row must still be refused.
        entry.snapshot = snapshot
    }

    /// Forgets `ids`.
    func remove(_ ids: [ManagedObjectID]) {
        indexWaitingRows(ofTreesOf: ids)
        for id in ids {
            _ = shard(for: id).state.withLock { $0.entries.removeValue(for: id) }
        }
    }

    /// Before a save writes rows: drops their cached snapshots and refuses, for a while, any
    /// snapshot of the given version or older (`Int64.max` for deleted rows), so reads racing
    /// the save cannot cache the old row again.
    func invalidate(_ rows: [(id: ManagedObjectID, floor: Int64)]) {
        guard !rows.isEmpty else { return }
        let expires = RowSnapshot.now() &+ Self.floorLifetime
        // The trees' waiting rows go in first, so that the floors below meet them in the table.
        index(noteFloors(ofTrees: Self.trees(of: rows.lazy.map(\.id)), until: expires))
        // One lock per shard, not per row.
        var grouped = Array(repeating: [(id: ManagedObjectID, floor: Int64)](), count: shards.count)
        if shards.count == 1 {
            grouped[0] = rows
        } else {
            for index in grouped.indices { grouped[index].reserveCapacity(rows.count / shards.count + 16) }
            for row in rows { grouped[shardIndex(for: row.id)].append(row) }
        }
        for (index, group) in grouped.enumerated() where !group.isEmpty {
            shards[index].state.withLock { state in
                state.entries.reserveCapacity(state.entries.count + group.count)
                for row in group { state.entries.set(Entry(snapshot: nil, floor: row.floor, floorExpires: expires), for: row.id) }
            }
        }
    }

    /// Number of entries whose snapshot is still alive (for tests and diagnostics).
    var liveCount: Int {
        indexAllWaitingRows()
        return shards.reduce(0) { total, shard in
            total
                + shard.state.withLock { state in
                    var live = 0
                    state.entries.visitEntries { _, entry in
                        if entry.liveSnapshot() != nil { live += 1 }
                    }
                    return live
                }
        }
    }

    /// Number of rows waiting to go into the table (for tests and diagnostics).
    var waitingCount: Int { waitingRowCount.load(ordering: .relaxed) }

    /// Number of entries, in use or not yet purged (for tests and diagnostics).
    var entryCount: Int {
        indexAllWaitingRows()
        return shards.reduce(0) { total, shard in total + shard.state.withLock { $0.entries.count } }
    }

    /// Forgets everything.
    func removeAll() {
        // The floors' record stays: `entries.removeAll()` drops the rows' floors but not the
        // trees', and a batch stored while one may be in force still goes in at once.
        let dropped = waiting.withLock { state -> [WaitingBatch] in
            waitingRowCount.store(0, ordering: .relaxed)
            return state.takeAll()
        }
        withExtendedLifetime(dropped) {}
        for shard in shards { shard.state.withLock { $0.entries.removeAll() } }
    }
}
