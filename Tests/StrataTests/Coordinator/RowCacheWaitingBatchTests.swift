import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Rows stored in batches wait, per inheritance tree, until something asks about the tree
/// (`Sources/Strata/Coordinator/RowCache.swift`). Core Data's coordinator registers every
/// fetched row in its row cache; what another context then gets must be what it would get had
/// the rows gone into the table at once: the newest row in use, never a row a save or a batch
/// request made stale.
@Suite("Row cache waiting batches")
struct RowCacheWaitingBatchTests {
    @Test("a batch's rows in use are served to a later look-up, one by one or several at once")
    func waitingRowsAreServed() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let rows = (0..<10).map { setup.row($0) }
        cache.store(rows)
        #expect(cache.snapshot(for: setup.id(3), maxAge: -1) === rows[3])
        var found: [RowSnapshot?] = []
        cache.snapshots(for: [setup.id(9), setup.id(42), setup.id(0)], maxAge: -1) { _, row in found.append(row) }
        #expect(found.count == 3)
        #expect(found[0] === rows[9])
        #expect(found[1] == nil)
        #expect(found[2] === rows[0])
        var none: [RowSnapshot?] = []
        cache.snapshots(for: [setup.id(1)], maxAge: 0) { _, row in none.append(row) }
        #expect(none.count == 1 && none[0] == nil)
    }

    @Test("reset lets go of the fetched rows too: the row cache keeps none that no object uses")
    func resetReleasesFetchedRows() throws {
        // Core Data's coordinator keeps a row in its cache only while some context uses it, and
        // a reset is how an app gives a context's memory back: after it, the rows of the
        // fetched objects must be gone, not wait in the cache for later fetches.
        let stack = try TestStack.samples(20)
        let context = stack.newContext()
        try context.performAndWait {
            weak var row: RowSnapshot?
            do {
                let request = FetchRequest<Sample>(entityName: "Sample")
                request.returnsObjectsAsFaults = false
                let samples = try context.fetch(request)
                #expect(samples.count == 20)
                row = samples.last?.snapshot
                #expect(row != nil)
            }
            // The objects are gone (clean objects are held weakly); the reset lets go of the rest.
            context.reset()
            #expect(row == nil)
            // Fetching again reads the store, as after any reset.
            #expect(try context.count(for: FetchRequest<Sample>(entityName: "Sample")) == 20)
        }
    }

    @Test("rows nothing uses any more when their batch goes in take no entry")
    func unusedRowsTakeNoEntry() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let kept = (0..<5).map { setup.row($0) }
        do {
            let released = (5..<1_000).map { setup.row($0) }
            cache.store(kept + released)
        }
        #expect(cache.entryCount == kept.count)
        #expect(cache.liveCount == kept.count)
        #expect(cache.snapshot(for: setup.id(500), maxAge: -1) == nil)
    }

    @Test("a batch nothing uses any more leaves an empty table empty, and its rows are released")
    func unusedBatchIntoEmptyTable() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        weak var probe: RowSnapshot?
        do {
            let rows = (0..<50).map { setup.row($0) }
            probe = rows[7]
            cache.store(rows)
        }
        cache.settleWaitingRows()
        #expect(probe == nil)
        #expect(cache.entryCount == 0)
        #expect(cache.snapshot(for: setup.id(7), maxAge: -1) == nil)
    }

    @Test("settling leaves batches whose rows are all in use waiting, and serves them as before")
    func settleKeepsUsedBatchesWaiting() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let held = (0..<30).map { setup.row($0) }
        cache.store(held)
        cache.settleWaitingRows()
        // Nothing to let go: the rows wait on (no table entries made for a reset's sake).
        #expect(cache.waitingCount == held.count)
        #expect(cache.snapshot(for: setup.id(12), maxAge: -1) === held[12])
    }

    @Test("settling takes a tree's batches in order: a newer unused row still replaces an older one in use")
    func settleKeepsTheOrderOfBatches() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 2)
        let older = setup.row(1, version: 1)
        cache.store([older, setup.row(3, version: 1)])
        cache.store([setup.row(1, version: 2), setup.row(2, version: 2)])
        cache.settleWaitingRows()
        #expect(cache.waitingCount == 0)
        // As if stored one after the other into the table: version 2 replaced version 1 and
        // went unused, so no row is served for 1 (the next read goes to the store).
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        withExtendedLifetime(older) {}
    }

    @Test("settling takes batches through the last one with an unused row; the rest, and batches stored later, wait")
    func settleTakesThroughTheLastUnusedBatch() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let first = (0..<10).map { setup.row($0) }
        cache.store(first)
        do { cache.store((10..<20).map { setup.row($0) }) }  // nothing holds these rows
        let third = (20..<25).map { setup.row($0) }
        cache.store(third)
        cache.settleWaitingRows()
        // The first two batches went into the table (the unused rows took no entry); the third,
        // all of whose rows are in use, waits on.
        #expect(cache.waitingCount == third.count)
        #expect(cache.snapshot(for: setup.id(15), maxAge: -1) == nil)
        #expect(cache.snapshot(for: setup.id(4), maxAge: -1) === first[4])
        // Settling again (the third batch went in with the look-up above) finds nothing to take,
        // and a batch stored after that waits and is served like the first.
        cache.settleWaitingRows()
        #expect(cache.waitingCount == 0)
        let later = (30..<40).map { setup.row($0) }
        cache.store(later)
        #expect(cache.waitingCount == later.count)
        cache.settleWaitingRows()
        #expect(cache.waitingCount == later.count)
        #expect(cache.snapshot(for: setup.id(33), maxAge: -1) === later[3])
        #expect(cache.snapshot(for: setup.id(22), maxAge: -1) === third[2])
        #expect(cache.liveCount == first.count + third.count + later.count)
    }

    @Test("an unused newer row still replaces the older row in use, as it would have when stored")
    func unusedNewerRowReplacesOlder() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 1)
        let older = setup.row(1, version: 1)
        cache.store([older])
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) === older)
        // A fetch reads version 2 (with another row) and lets both go.
        cache.store([setup.row(1, version: 2), setup.row(2, version: 2)])
        // Version 2 replaced version 1, then went unused: no row is served, and the next read
        // goes to the store (Core Data's row cache keeps the newest row it was given).
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        withExtendedLifetime(older) {}
    }

    @Test("an older row in a waiting batch does not replace a newer one in use")
    func olderWaitingRowLosesToNewer() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 2)
        let newer = setup.row(1, version: 5)
        cache.store([newer])
        let stale = [setup.row(1, version: 4), setup.row(2, version: 4)]
        cache.store(stale)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) === newer)
        #expect(cache.snapshot(for: setup.id(2), maxAge: -1) === stale[1])
    }

    @Test("a save's floor meets the rows that waited before it, and those stored after it")
    func saveFloorMeetsWaitingRows() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 2)
        let before = [setup.row(1, version: 1), setup.row(2, version: 1)]
        cache.store(before)
        // A save of row 1, version 1 → 2.
        cache.invalidate([(id: setup.id(1), floor: 1)])
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        #expect(cache.snapshot(for: setup.id(2), maxAge: -1) === before[1])
        // A read that began before the save offers version 1 in a batch after it: refused.
        let racing = [setup.row(1, version: 1), setup.row(3, version: 1)]
        cache.store(racing)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        #expect(cache.snapshot(for: setup.id(3), maxAge: -1) === racing[1])
        // The saved version is accepted.
        let saved = [setup.row(1, version: 2), setup.row(4, version: 1)]
        cache.store(saved)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) === saved[0])
    }

    @Test("while a save's floor may be in force, a batch of its tree goes into the table at once")
    func batchUnderFloorGoesInAtOnce() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 2)
        cache.invalidate([(id: setup.id(1), floor: 1)])
        // Released at once: had they waited, they would take no entry (see above). Stored
        // under the floor, they go in as the table takes any row, and wait for the purge.
        cache.store([setup.row(5), setup.row(6)])
        #expect(cache.entryCount == 3)  // the floor's entry and the two rows
        #expect(cache.liveCount == 0)
        // The floor judges the batch as it stands: version 1 of row 1 is refused.
        let racing = [setup.row(1, version: 1), setup.row(7, version: 1)]
        cache.store(racing)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        #expect(cache.snapshot(for: setup.id(7), maxAge: -1) === racing[1])
    }

    @Test("a batch request drops the waiting rows of its tree and refuses those read before it")
    func batchRequestDropsWaitingRows() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 2)
        let before = [setup.row(1), setup.row(2)]
        let racing = [setup.row(3), setup.row(4)]
        cache.store(before)
        cache.invalidateTrees([setup.entity.layout.rootIdentifier], readBefore: RowSnapshot.now())
        cache.store(racing)
        #expect(cache.snapshot(for: setup.id(1), maxAge: -1) == nil)
        #expect(cache.snapshot(for: setup.id(3), maxAge: -1) == nil)
        let later = [setup.row(3, version: 2), setup.row(5, version: 1)]
        cache.store(later)
        #expect(cache.snapshot(for: setup.id(3), maxAge: -1) === later[0])
        withExtendedLifetime([before, racing]) {}
    }

    @Test("past the waiting limit, the batches already waiting go into the table")
    func overflowIndexesEarlierBatches() throws {
        let setup = try RowCacheFixture()
        let cache = RowCache(shardCount: 4)
        let first = (0..<Int64(RowCache.waitingRowLimit)).map { setup.row($0) }
        cache.store(first)
        let second = [setup.row(-1), setup.row(-2)]
        cache.store(second)
        // The first batch went in when the second arrived; the second still waits.
        #expect(cache.snapshot(for: setup.id(1_234), maxAge: -1) === first[1_234])
        #expect(cache.snapshot(for: setup.id(-2), maxAge: -1) === second[1])
        #expect(cache.liveCount == first.count + second.count)
    }

    @Test("rows of several trees in one batch wait per tree")
    func mixedTreesWaitApart() throws {
        let model = GraphFixtures.company()
        _ = try TestStack(model: model)  // freezes the model: its entities get their layouts
        let people = try #require(model.entitiesByName["Employee"])
        let departments = try #require(model.entitiesByName["Department"])
        let token = StoreToken(identifier: "store")
        func emptyRow(_ entity: EntityDescription) -> RowSnapshot {
            RowSnapshot.make(objectID: ManagedObjectID(entityIdentity: entity, primaryKey: 1, store: token), version: 1, fetchedAt: RowSnapshot.now(), count: 0, toOneCount: 0) { _, _ in }
        }
        let person = emptyRow(people)
        let department = emptyRow(departments)
        let cache = RowCache(shardCount: 2)
        cache.store([person, department])
        // A batch request on the department tree leaves the person's row alone.
        cache.invalidateTrees([departments.layout.rootIdentifier], readBefore: RowSnapshot.now())
        #expect(cache.snapshot(for: person.objectID, maxAge: -1) === person)
        #expect(cache.snapshot(for: department.objectID, maxAge: -1) == nil)
    }
}
