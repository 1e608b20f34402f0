import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The row cache must never hand out a row older than a save it saw. Core Data's row cache
/// gives the same guarantee: after a save, no context fires a fault with the pre-save values.
@Suite("Row cache floors")
struct RowCacheFloorTests {
    private func row(_ id: ManagedObjectID, version: Int64, age: Int64) -> RowSnapshot {
        RowSnapshot.make(objectID: id, version: version, attributes: [.text("x"), .integer(age), .null], toOne: [])
    }

    @Test("a read that began before a save cannot cache its old row after the saved row was released")
    func floorOutlivesTheSavedSnapshot() throws {
        let entity = try ModelFixtures.frozenPerson()
        let id = ManagedObjectID(entityIdentity: entity, primaryKey: 7, store: StoreToken(identifier: "store"))
        let cache = RowCache(shardCount: 1)
        // A save of version 1 → 2: the floor refuses version 1 and older for a while.
        cache.invalidate([(id: id, floor: 1)])
        // The save stores its new row; nobody holds it afterwards (the saving objects are gone).
        do {
            let saved = row(id, version: 2, age: 2)
            cache.store([saved])
            #expect(cache.snapshot(for: id, maxAge: -1)?.version == 2)
        }
        #expect(cache.snapshot(for: id, maxAge: -1) == nil)
        // A read that started before the save now offers its old row: it must be refused.
        let stale = row(id, version: 1, age: 1)
        cache.store([stale])
        #expect(cache.snapshot(for: id, maxAge: -1) == nil)
        // A newer row is still accepted.
        let fresh = row(id, version: 2, age: 2)
        cache.store([fresh])
        #expect(cache.snapshot(for: id, maxAge: -1)?.version == 2)
    }

    @Test("after a batch request, rows of the tree read before it are dropped and refused; later reads are kept")
    func treeFloorRefusesEarlierReads() throws {
        let entity = try ModelFixtures.frozenPerson()
        let token = StoreToken(identifier: "store")
        let cached = row(ManagedObjectID(entityIdentity: entity, primaryKey: 1, store: token), version: 1, age: 1)
        let cache = RowCache(shardCount: 2)
        cache.store([cached])
        // A read that began before the batch request…
        let racing = RowSnapshot.make(objectID: ManagedObjectID(entityIdentity: entity, primaryKey: 2, store: token), version: 1, attributes: [.text("x"), .integer(1), .null], toOne: [])
        let committed = RowSnapshot.now()
        cache.invalidateTrees([entity.layout.rootIdentifier], readBefore: committed)
        #expect(cache.snapshot(for: cached.objectID, maxAge: -1) == nil)
        // …offers its old row after the request: refused.
        cache.store([racing])
        #expect(cache.snapshot(for: racing.objectID, maxAge: -1) == nil)
        // A read after the request is cached as usual.
        let later = row(racing.objectID, version: 2, age: 2)
        cache.store([later])
        #expect(cache.snapshot(for: racing.objectID, maxAge: -1)?.version == 2)
        withExtendedLifetime([cached, racing, later]) {}
    }
}
