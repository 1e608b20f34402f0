import Dispatch
import Foundation
import StrataTestSupport
import Synchronization
import Testing

@testable import Strata

/// How long the row cache keeps a row. Core Data's coordinator keeps a row snapshot while some
/// context references it and drops it when none does: a fault fired later reads the store
/// again. Strata's cache holds its snapshots strongly and tells used ones from unused ones by
/// their reference count (`Sources/Strata/Coordinator/RowCache.swift`).
@Suite("Row cache lifetime")
struct RowCacheLifetimeTests {
    @Test("a cached row is served while something uses it, and not once only the cache holds it")
    func servedWhileUsed() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache()
        var held: RowSnapshot? = setup.row(1)
        cache.store([try #require(held)])
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) === held)
        #expect(cache.liveCount == 1)
        held = nil
        #expect(cache.liveCount == 0)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
    }

    @Test("an older row does not replace a newer one in use, and does once the newer one is unused")
    func versionsWhileUsed() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 1)
        var newer: RowSnapshot? = setup.row(5, version: 3)
        cache.store([try #require(newer)])
        let older = setup.row(5, version: 2)
        cache.store([older])
        #expect(cache.snapshot(for: setup.id(5), maxAge: -1)?.version == 3)
        newer = nil
        cache.store([older])
        #expect(cache.snapshot(for: setup.id(5), maxAge: -1) === older)
    }

    @Test("rows nobody uses are purged: the table stays near the rows in use, however many were cached")
    func purgeBoundsTheTable() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let kept = (0..<100).map { setup.row(Int64($0)) }
        cache.store(kept)
        // 50 fetches of 2,000 new rows each, released after each fetch.
        for round in 0..<50 {
            let rows = (0..<2_000).map { setup.row(Int64(1_000 + round * 2_000 + $0)) }
            cache.store(rows)
        }
        #expect(cache.liveCount == kept.count)
        // The rows in use plus what was written since a shard's last purge (a purge comes once
        // more than 1,024 rows, or half the shard, were written: see `insert`), not 100,000.
        #expect(cache.entryCount <= kept.count + 4 * 1_024 + 2 * 2_000)
        for row in kept { #expect(cache.snapshot(for: row.objectID, maxAge: -1) === row) }
    }

    @Test("threads storing, reading and dropping rows at once only ever get the row they asked for")
    func concurrentUse() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache()
        let wrong = Atomic<Int>(0)
        let served = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var rows: [RowSnapshot] = []
            for step in 0..<3_000 {
                let key = Int64(step % 500)
                if step % 3 == worker % 3 {
                    let row = setup.row(key, version: Int64(step))
                    cache.store([row])
                    rows.append(row)
                    if rows.count > 50 { rows.removeFirst(25) }
                }
                if let found = cache.snapshot(for: setup.id(key), maxAge: -1) {
                    served.add(1, ordering: .relaxed)
                    if found.objectID.keyNumber != key { wrong.add(1, ordering: .relaxed) }
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(served.load(ordering: .relaxed) > 0)
    }
}
