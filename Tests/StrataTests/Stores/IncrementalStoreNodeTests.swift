import Foundation
import Strata
import Testing

/// The two ways a store of the public seam makes nodes (Core Data's `NSIncrementalStoreNode`,
/// `init(objectID:withValues:version:)`): by property name, and by position for stores that read
/// many rows. Both must hold the same values and refuse the same mistakes.
@Suite("Incremental store nodes")
struct IncrementalStoreNodeTests {
    /// Person (name, age, a transient note, manager → Person, a transient buddy → Person).
    static func model() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        let note = AttributeDescription(name: "note", type: .string)
        note.isTransient = true
        let buddy = RelationshipDescription(name: "buddy", destination: person)
        buddy.isTransient = true
        person.properties = [
            AttributeDescription(name: "name", type: .string), AttributeDescription(name: "age", type: .integer32), note,
            RelationshipDescription(name: "manager", destination: person), buddy,
        ]
        return ManagedObjectModel(entities: [person])
    }

    /// A store whose IDs the nodes use.
    final class Store: IncrementalStore, @unchecked Sendable {}

    @Test("a node by position holds what the same node by name holds")
    func positionalMatchesNamed() throws {
        let model = Self.model()
        let person = try #require(model.entitiesByName["Person"])
        let store = try Store(model: model, configurationName: nil, url: nil, options: [:])
        let id = store.newObjectID(for: person, referenceObject: 1)
        let manager = store.newObjectID(for: person, referenceObject: 2)
        let attributes = IncrementalStoreNode.storedAttributes(of: person)
        let toOnes = IncrementalStoreNode.toOneRelationships(of: person)
        #expect(Set(attributes.map(\.name)) == ["name", "age"])  // transient attributes are not stored
        var values: [Any?] = Array(repeating: nil, count: attributes.count)
        values[try #require(attributes.firstIndex { $0.name == "name" })] = "Ada"
        values[try #require(attributes.firstIndex { $0.name == "age" })] = Int32(36)
        var targets: [ManagedObjectID?] = Array(repeating: nil, count: toOnes.count)
        targets[try #require(toOnes.firstIndex { $0.name == "manager" })] = manager
        if let buddy = toOnes.firstIndex(where: { $0.name == "buddy" }) { targets[buddy] = manager }  // ignored: transient
        let positional = try IncrementalStoreNode(objectID: id, version: 3, attributeValues: values, toOneTargets: targets)
        let named = try IncrementalStoreNode(objectID: id, values: ["name": "Ada", "age": Int32(36), "manager": manager], version: 3)
        for key in ["name", "age", "manager", "buddy"] {
            #expect(String(describing: positional.value(forKey: key)) == String(describing: named.value(forKey: key)), "\(key)")
        }
        #expect(positional.value(forKey: "buddy") == nil)
        #expect(positional.version == 3)
        // Missing trailing values are nil.
        let short = try IncrementalStoreNode(objectID: id, version: 1, attributeValues: [], toOneTargets: [])
        #expect(short.value(forKey: "name") == nil)
    }

    @Test("a value of the wrong type, or more values than the entity has, is an error naming it")
    func mistakes() throws {
        let model = Self.model()
        let person = try #require(model.entitiesByName["Person"])
        let store = try Store(model: model, configurationName: nil, url: nil, options: [:])
        let id = store.newObjectID(for: person, referenceObject: 1)
        let attributes = IncrementalStoreNode.storedAttributes(of: person)
        var values: [Any?] = Array(repeating: nil, count: attributes.count)
        let age = try #require(attributes.firstIndex { $0.name == "age" })
        values[age] = "thirty-six"
        let error = try #require(throws: StrataError.self) { try IncrementalStoreNode(objectID: id, version: 1, attributeValues: values, toOneTargets: []) }
        #expect(error.key == "age")
        #expect(throws: StrataError.self) {
            try IncrementalStoreNode(objectID: id, version: 1, attributeValues: Array(repeating: nil, count: attributes.count + 1), toOneTargets: [])
        }
    }
}
