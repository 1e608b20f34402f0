import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The row cache's table (`Sources/Strata/Coordinator/ObjectIDTable.swift`) must answer exactly
/// as a `Dictionary` keyed by `ManagedObjectID` would: IDs are equal by row (Core Data's
/// `NSManagedObjectID` equality), whatever entity of the inheritance tree or which temporary
/// number they were made with, and removing entries must leave every other one reachable.
@Suite("Object ID table")
struct ObjectIDTableTests {
    private struct Setup {
        let person: EntityDescription
        let token = StoreToken(identifier: "store")
        let otherToken = StoreToken(identifier: "other store")

        init() throws { person = try ModelFixtures.frozenPerson() }

        /// A permanent ID of row `key` in one of two stores, or a temporary ID numbered `key`.
        func id(_ key: Int64, kind: Int) -> ManagedObjectID {
            switch kind {
            case 0: ManagedObjectID(entityIdentity: person, primaryKey: key, store: token)
            case 1: ManagedObjectID(entityIdentity: person, primaryKey: key, store: otherToken)
            default: ManagedObjectID(entityIdentity: person, temporaryNumber: UInt64(key))
            }
        }
    }

    /// Seeded random inserts, updates, removals, filters and clears, checked against a
    /// `Dictionary` after every step: consecutive keys (how rows are numbered), clustered keys
    /// (removals in the middle of probe runs) and IDs of different stores with equal keys.
    @Test("answers as a Dictionary does over random operations", arguments: [1, 2, 3, 4])
    func matchesDictionary(seed: UInt64) throws {
        let setup = try Setup()
        var random = SeededRandom(seed: seed)
        let table = ObjectIDTable<Int>()
        var expected: [ManagedObjectID: Int] = [:]
        for step in 0..<6_000 {
            let key = random.next() % 3 == 0 ? Int64(random.next() % 10_000) : Int64(random.next() % 300)
            let id = setup.id(key, kind: Int(random.next() % 3))
            switch random.next() % 10 {
            case 0..<5:
                table.set(step, for: id)
                expected[id] = step
            case 5..<7:
                table.withValue(for: id, default: -1) { $0 += 1 }
                expected[id, default: -1] += 1
            case 7..<9:
                #expect(table.removeValue(for: id) == expected.removeValue(forKey: id))
            default:
                if step % 500 == 9 {
                    table.keepOnly(minimumCapacity: Int(random.next() % 64)) { _, value in value % 3 != 0 }
                    expected = expected.filter { $0.value % 3 != 0 }
                } else if step == 4_999 {
                    table.removeAll()
                    expected.removeAll()
                }
            }
            #expect(table.count == expected.count)
            if step % 97 == 0 {
                var seen: [ManagedObjectID: Int] = [:]
                table.visitEntries { id, value in seen[id] = value }
                #expect(seen == expected)
                for (id, value) in expected {
                    let bucket = try #require(table.bucket(of: id))
                    #expect(table.withValue(inBucket: bucket) { $0 } == value)
                }
            }
        }
        for (id, value) in expected { #expect(table.removeValue(for: id) == value) }
        #expect(table.count == 0)
    }

    /// Values are released when removed, filtered out, cleared, or when the table goes.
    @Test("releases its values")
    func releasesValues() throws {
        let setup = try Setup()
        final class Box {}
        weak var removed: Box?
        weak var filtered: Box?
        weak var cleared: Box?
        weak var dropped: Box?
        do {
            let table = ObjectIDTable<Box>()
            for key in 0..<100 { table.set(Box(), for: setup.id(Int64(key), kind: 0)) }
            removed = table.withValue(for: setup.id(1, kind: 0), default: Box()) { $0 }
            filtered = table.withValue(for: setup.id(2, kind: 0), default: Box()) { $0 }
            table.removeValue(for: setup.id(1, kind: 0))
            table.keepOnly { id, _ in id.keyNumber != 2 }
            #expect(removed == nil && filtered == nil)
            #expect(table.count == 98)
            cleared = table.withValue(for: setup.id(3, kind: 0), default: Box()) { $0 }
            table.removeAll()
            #expect(cleared == nil && table.count == 0)
            table.set(Box(), for: setup.id(7, kind: 2))
            dropped = table.withValue(for: setup.id(7, kind: 2), default: Box()) { $0 }
            #expect(dropped != nil)
        }
        #expect(dropped == nil)
    }
}
