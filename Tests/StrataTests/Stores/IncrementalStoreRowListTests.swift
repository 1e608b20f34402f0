import Foundation
import Strata
import StrataTestSupport
import Testing

/// Row lists (`Sources/Strata/Stores/IncrementalStoreRowList.swift`): a store built on
/// `IncrementalStore` hands a fetch's rows over as a list instead of one node object per row.
/// What a context gets must be what the nodes would have given it, as Core Data's
/// `NSIncrementalStore` fetch results are the nodes' values, in the store's order.
@Suite("Incremental store row lists")
struct IncrementalStoreRowListTests {
    typealias Fixture = IncrementalStoreNodeColumnValueTests.Fixture

    @Test("a row appended from column values reads back as the node made from them")
    func appendMatchesNode() throws {
        let fixture = try Fixture()
        let columns = try fixture.columns(["name": .text("first"), "large": .integer(42), "ratio": .real(0.25), "flag": .integer(1)])
        let node = try IncrementalStoreNode(objectID: fixture.id(1), version: 3, columnValues: columns, toOneTargets: [fixture.id(9)])
        var list = IncrementalStoreRowList()
        try list.append(objectID: fixture.id(1), version: 3, columnValues: columns, toOneTargets: [fixture.id(9)])
        #expect(list.count == 1)
        let listed = try #require(list.nodes.first)
        #expect(listed.objectID == node.objectID)
        #expect(listed.version == 3)
        for key in ["name", "large", "ratio", "flag", "parent", "price"] {
            #expect(String(describing: listed.value(forKey: key)) == String(describing: node.value(forKey: key)), "\(key)")
        }
        #expect(list.objectIDs == [fixture.id(1)])
    }

    @Test("a value the attribute cannot take throws, naming it, and appends nothing")
    func misfitAppendsNothing() throws {
        let fixture = try Fixture()
        var list = IncrementalStoreRowList()
        try list.append(objectID: fixture.id(1), version: 1, columnValues: [], toOneTargets: [])
        let error = try #require(throws: StrataError.self) {
            try list.append(objectID: fixture.id(2), version: 1, columnValues: try fixture.columns(["flag": .integer(7)]), toOneTargets: [])
        }
        #expect(error.key == "flag")
        #expect(list.count == 1)
    }

    @Test("rows are appended in order, from nodes or other lists, positions outside a list left out")
    func appendsKeepOrder() throws {
        let fixture = try Fixture()
        let nodes = try (1...5).map { key in
            try IncrementalStoreNode(objectID: fixture.id(Int64(key)), version: 1, columnValues: [], toOneTargets: [])
        }
        let whole = IncrementalStoreRowList(nodes)
        #expect(whole.objectIDs == (1...5).map { fixture.id(Int64($0)) })
        var merged = IncrementalStoreRowList()
        merged.append(contentsOf: whole, positions: 3..<9)
        merged.append(nodes[0])
        merged.append(contentsOf: whole, positions: 1..<2)
        merged.append(contentsOf: IncrementalStoreRowList())
        #expect(merged.objectIDs == [4, 5, 1, 2].map { fixture.id($0) })
        #expect(!merged.isEmpty && IncrementalStoreRowList().isEmpty)
    }

    @Test("a store that overrides only the node methods is read through the default row lists")
    func defaultListWrapsFetchRows() throws {
        // The seam's older form keeps working: Strata now asks for `fetchRowList`, whose
        // default returns the nodes of `fetchRows`.
        final class NodeStore: IncrementalStore, @unchecked Sendable {
            override func loadMetadata() throws -> [String: any Sendable] { [StoreMetadataKey.storeUUID: UUID().uuidString] }
            override func fetchRows(_ request: StoreFetchRequest, options: ReadOptions) throws -> [IncrementalStoreNode] {
                try (1...3).map { key in
                    try IncrementalStoreNode(objectID: newObjectID(for: request.entity, referenceObject: Int64(key)), values: ["name": "row \(key)"], version: 1)
                }
            }
            override func fetchObjectIDs(_ request: StoreFetchRequest, options: ReadOptions) throws -> [ManagedObjectID] {
                (1...3).map { newObjectID(for: request.entity, referenceObject: Int64($0)) }
            }
            override func newValuesForObjects(with ids: [ManagedObjectID], options: ReadOptions) throws -> [IncrementalStoreNode] {
                try ids.compactMap { id in
                    try referenceObject(for: id).map { key in try IncrementalStoreNode(objectID: id, values: ["name": "fired \(key)"], version: 1) }
                }
            }
        }
        let type = StoreType(rawValue: "StrataTestNodeStore")
        PersistentStoreCoordinator.registerStoreClass(NodeStore.self, forStoreType: type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: StoreConformanceTests.peopleModel())
        try coordinator.addPersistentStore(type: type)
        let context = StoreConformanceTests.context(coordinator)
        let texts = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map { $0.value(forKey: "name") as? String }
        }
        #expect(texts == ["row 1", "row 2", "row 3"])
        // Faults fire through the default `newValuesRowList`, from `newValuesForObjects`.
        let fired = try context.performAndWait {
            context.reset()
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.includesPropertyValues = false
            return try context.fetch(request).map { $0.value(forKey: "name") as? String }
        }
        #expect(fired == ["fired 1", "fired 2", "fired 3"])
    }

    // Every Strata store returns the rows of a fetch without sort descriptors in key order; a
    // store reading them in its database's own order puts them in key order with this.
    @Test("sortInKeyOrder puts rows in key order, and leaves rows in key order as they are")
    func sortInKeyOrder() throws {
        let fixture = try Fixture()
        var list = IncrementalStoreRowList()
        for key: Int64 in [4, 1, 5, 2, 3] {
            try list.append(objectID: fixture.id(key), version: key, columnValues: [], toOneTargets: [])
        }
        list.sortInKeyOrder()
        #expect(list.objectIDs == (1...5).map { fixture.id($0) })
        #expect(list.nodes.map(\.version) == [1, 2, 3, 4, 5])
        list.sortInKeyOrder()
        #expect(list.objectIDs == (1...5).map { fixture.id($0) })
        var empty = IncrementalStoreRowList()
        empty.sortInKeyOrder()
        #expect(empty.isEmpty)
    }
}
