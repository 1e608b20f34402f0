import Foundation
import Testing

@testable import Strata

/// The read time of a row from a store of the public seam is when the read began, not when the
/// store got round to making the node: the row cache judges rows against a save's floor by it
/// (Core Data's row cache never serves a row older than the last save it knows of), so a row
/// read before a save must never carry a time after it.
@Suite("Store read clock")
struct StoreReadClockTests {
    /// A store whose fetch takes a while between its read and making its one node, and keeps
    /// the node it returned.
    final class SlowStore: IncrementalStore, @unchecked Sendable {
        nonisolated(unsafe) static var made: [IncrementalStoreNode] = []
        override func loadMetadata() throws -> [String: any Sendable] { [StoreMetadataKey.storeUUID: UUID().uuidString] }
        override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
            Thread.sleep(forTimeInterval: 0.02)  // the server's answer arrives, and is decoded
            let node = try IncrementalStoreNode(objectID: newObjectID(for: request.entity, referenceObject: 1), values: ["name": "p"], version: 1)
            Self.made.append(node)
            return [node]
        }
    }

    @Test("a node made inside a store's fetch carries the time the fetch began")
    func nodesCarryTheReadStart() throws {
        let type = StoreType(rawValue: "StrataTestSlowStore")
        PersistentStoreCoordinator.registerStoreClass(SlowStore.self, forStoreType: type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        try coordinator.addPersistentStore(type: type)
        let context = StoreConformanceTests.context(coordinator)
        let before = RowSnapshot.now()
        let count = try context.performAndWait { try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).count }
        #expect(count == 1)
        let node = try #require(SlowStore.made.last)
        #expect(node.row.fetchedAt >= before)
        #expect(node.row.fetchedAt < before + 15_000_000)  // not after the 20 ms the store took
    }

    @Test("reads nest; outside a read a node takes the time it is made")
    func nesting() throws {
        #expect(StoreReadClock.readStartedAt == nil)
        let outer = StoreReadClock.reading { () -> UInt64? in
            let start = StoreReadClock.readStartedAt
            Thread.sleep(forTimeInterval: 0.005)
            let inner = StoreReadClock.reading { StoreReadClock.readStartedAt }
            #expect(inner != nil && inner != start)
            #expect(StoreReadClock.readStartedAt == start)
            return start
        }
        #expect(outer != nil)
        #expect(StoreReadClock.readStartedAt == nil)
        let before = RowSnapshot.now()
        let model = StoreConformanceTests.peopleModel()
        let person = try #require(model.entitiesByName["Person"])
        let store = try SlowStore(model: model, configurationName: nil, url: nil, options: [:])
        let node = try IncrementalStoreNode(objectID: store.newObjectID(for: person, referenceObject: 1), version: 1, columnValues: [], toOneTargets: [])
        #expect(node.row.fetchedAt >= before)
    }
}
