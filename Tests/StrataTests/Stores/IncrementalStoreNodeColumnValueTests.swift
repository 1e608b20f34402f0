import Foundation
import Strata
import Testing

/// Nodes from column values (`IncrementalStoreNode.init(objectID:version:columnValues:toOneTargets:)`):
/// a store hands over what its SQL rows hold — integers, reals, text, blobs — and the node reads
/// back the Swift values Core Data would give (`NSIncrementalStoreNode` values are the
/// attributes' own types: `Int16`, `Decimal`, `Date`, `UUID`, …), the same as a node made by name.
@Suite("Incremental store nodes from column values")
struct IncrementalStoreNodeColumnValueTests {
    /// Every attribute type, and a to-one.
    static func model() -> ManagedObjectModel {
        let thing = EntityDescription(name: "Thing")
        let types: [(String, AttributeType)] = [
            ("small", .integer16), ("medium", .integer32), ("large", .integer64), ("ratio", .double), ("single", .float), ("price", .decimal),
            ("name", .string), ("flag", .boolean), ("when", .date), ("bytes", .binaryData), ("ident", .uuid), ("link", .uri), ("tags", .transformable),
        ]
        thing.properties = types.map { AttributeDescription(name: $0.0, type: $0.1) } + [RelationshipDescription(name: "parent", destination: thing)]
        return ManagedObjectModel(entities: [thing])
    }

    final class Store: IncrementalStore, @unchecked Sendable {}

    /// The fixture: the entity, a store's IDs, and each attribute's position.
    struct Fixture {
        let thing: EntityDescription
        let store: Store
        let slots: [String: Int]
        let count: Int

        init() throws {
            let model = IncrementalStoreNodeColumnValueTests.model()
            thing = try #require(model.entitiesByName["Thing"])
            store = try Store(model: model, configurationName: nil, url: nil, options: [:])
            let attributes = IncrementalStoreNode.storedAttributes(of: thing)
            slots = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($0.element.name, $0.offset) })
            count = attributes.count
        }

        func id(_ key: Int64) -> ManagedObjectID { store.newObjectID(for: thing, referenceObject: key) }

        /// Column values by attribute name, in node order (absent ones `.null`).
        func columns(_ byName: [String: IncrementalStoreNode.ColumnValue]) throws -> [IncrementalStoreNode.ColumnValue] {
            var values = Array(repeating: IncrementalStoreNode.ColumnValue.null, count: count)
            for (name, value) in byName { values[try #require(slots[name])] = value }
            return values
        }
    }

    @Test("each attribute type reads back the value a node by name holds")
    func matchesNamedNode() throws {
        let fixture = try Fixture()
        let ident = UUID()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.5)
        let tags = ["a", "b"]
        let tagsData = try PropertyListSerialization.data(fromPropertyList: tags, format: .binary, options: 0)
        let parent = fixture.id(2)
        let node = try IncrementalStoreNode(
            objectID: fixture.id(1), version: 4,
            columnValues: try fixture.columns([
                "small": .integer(-7), "medium": .integer(70_000), "large": .integer(Int64.max), "ratio": .real(0.1), "single": .real(0.1),
                "price": .text("12.50"), "name": .text("Ada"), "flag": .integer(1), "when": .real(123_456.5), "bytes": .blob(Data([1, 2, 3])),
                "ident": .blob(withUnsafeBytes(of: ident.uuid) { Data($0) }), "link": .text("https://example.com/a"), "tags": .blob(tagsData),
            ]), toOneTargets: [parent])
        let named = try IncrementalStoreNode(
            objectID: fixture.id(1),
            values: [
                "small": Int16(-7), "medium": Int32(70_000), "large": Int64.max, "ratio": 0.1, "single": Float(0.1), "price": Decimal(string: "12.5")!,
                "name": "Ada", "flag": true, "when": when, "bytes": Data([1, 2, 3]), "ident": ident, "link": URL(string: "https://example.com/a")!,
                "tags": tags, "parent": parent,
            ], version: 4)
        for key in fixture.slots.keys.sorted() + ["parent"] {
            #expect(String(describing: node.value(forKey: key)) == String(describing: named.value(forKey: key)), "\(key)")
        }
        #expect(node.value(forKey: "single") as? Float == Float(0.1))  // rounded to Float, as Core Data keeps a float
        #expect(node.value(forKey: "price") as? Decimal == Decimal(string: "12.5"))
        #expect(node.value(forKey: "tags") as? [String] == tags)  // the transformer runs when read
        #expect(node.version == 4)
    }

    @Test("other forms each type takes: integers for numbers and dates, a UUID's text, NaN")
    func otherForms() throws {
        let fixture = try Fixture()
        let ident = UUID()
        let node = try IncrementalStoreNode(
            objectID: fixture.id(1), version: 1,
            columnValues: try fixture.columns([
                "ratio": .integer(3), "single": .integer(2), "when": .integer(60), "price": .integer(5), "ident": .text(ident.uuidString),
            ]), toOneTargets: [])
        #expect(node.value(forKey: "ratio") as? Double == 3)
        #expect(node.value(forKey: "single") as? Float == 2)
        #expect(node.value(forKey: "when") as? Date == Date(timeIntervalSinceReferenceDate: 60))
        #expect(node.value(forKey: "price") as? Decimal == 5)
        #expect(node.value(forKey: "ident") as? UUID == ident)
        let nan = try IncrementalStoreNode(objectID: fixture.id(2), version: 1, columnValues: try fixture.columns(["ratio": .real(.nan), "price": .text("NaN")]), toOneTargets: [])
        #expect((nan.value(forKey: "ratio") as? Double)?.isNaN == true)
        #expect((nan.value(forKey: "price") as? Decimal)?.isNaN == true)
        // A NaN decimal stored by name reads back as NaN too (its stored text is "NaN").
        let named = try IncrementalStoreNode(objectID: fixture.id(2), values: ["price": Decimal.nan], version: 1)
        #expect((named.value(forKey: "price") as? Decimal)?.isNaN == true)
        // Missing trailing values and targets are no value.
        let short = try IncrementalStoreNode(objectID: fixture.id(3), version: 1, columnValues: [], toOneTargets: [])
        #expect(short.value(forKey: "name") == nil)
        #expect(short.value(forKey: "parent") == nil)
    }

    @Test(
        "a value its attribute cannot take is an error naming the attribute",
        arguments: [
            ("small", IncrementalStoreNode.ColumnValue.integer(40_000)), ("medium", .integer(Int64(Int32.max) + 1)), ("large", .text("1")),
            ("ratio", .text("x")), ("price", .text("twelve")), ("name", .integer(1)), ("flag", .integer(2)), ("when", .text("today")),
            ("bytes", .text("abc")), ("ident", .blob(Data([1, 2]))), ("ident", .text("not a uuid")), ("link", .blob(Data())), ("tags", .text("[]")),
        ])
    func misfits(key: String, value: IncrementalStoreNode.ColumnValue) throws {
        let fixture = try Fixture()
        let error = try #require(throws: StrataError.self) {
            try IncrementalStoreNode(objectID: fixture.id(1), version: 1, columnValues: try fixture.columns([key: value]), toOneTargets: [])
        }
        #expect(error.key == key)
        #expect(error.code == StrataError.Code.persistentStoreOperation)
        #expect(error.message.contains("Thing.\(key)"))
    }

    @Test("more values or targets than the entity has is an error")
    func tooMany() throws {
        let fixture = try Fixture()
        #expect(throws: StrataError.self) {
            try IncrementalStoreNode(objectID: fixture.id(1), version: 1, columnValues: Array(repeating: .null, count: fixture.count + 1), toOneTargets: [])
        }
        #expect(throws: StrataError.self) {
            try IncrementalStoreNode(objectID: fixture.id(1), version: 1, columnValues: [], toOneTargets: [nil, nil])
        }
    }
}
