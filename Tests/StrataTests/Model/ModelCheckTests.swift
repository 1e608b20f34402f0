import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Model checks")
struct ModelCheckTests {
    @Test("a valid model passes and freezes when used")
    func validModel() throws {
        let model = ModelFixtures.allTypes()
        try model.checkModel()
        let stack = try TestStack(model: model, kind: .inMemory)
        #expect(model.isFrozen)
        _ = stack
    }

    @Test("every problem is listed in one error")
    func allProblemsAtOnce() throws {
        let a = EntityDescription(name: "Thing")
        let b = EntityDescription(name: "Thing")
        a.properties = [
            AttributeDescription(name: "description", type: .string),
            AttributeDescription(name: "count", type: .integer16, defaultValue: 40_000),
            AttributeDescription(name: "count", type: .string),
            AttributeDescription(name: "blob", type: .transformable),
            AttributeDescription(name: "when", type: .date, defaultValue: "yesterday"),
            AttributeDescription(name: "nothing", type: .undefined),
        ]
        let blob = a.properties[3] as? AttributeDescription
        blob?.valueTransformerName = "NoSuchTransformer"
        let model = ManagedObjectModel(entities: [a, b])
        let error = try #require(throws: StrataError.self) { try model.checkModel() }
        #expect(error.code == StrataError.Code.coreData)
        let messages = error.underlyingErrors.map(\.message).joined(separator: "\n")
        #expect(messages.contains("Entity name 'Thing' is used by 2 entities"))
        #expect(messages.contains("'description'") && messages.contains("reserved"))
        #expect(messages.contains("declares property 'count' more than once"))
        #expect(messages.contains("40000"))
        #expect(messages.contains("NoSuchTransformer"))
        #expect(messages.contains("yesterday"))
        #expect(messages.contains("undefined"))
        #expect(error.underlyingErrors.count >= 7)
    }

    @Test("a broken model cannot be used by a coordinator")
    func brokenModelRefused() throws {
        let entity = EntityDescription(name: "Bad")
        entity.properties = [AttributeDescription(name: "x", type: .integer16, defaultValue: 70_000)]
        let model = ManagedObjectModel(entities: [entity])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        #expect(throws: StrataError.self) { try coordinator.addPersistentStore(type: .inMemory) }
        #expect(!model.isFrozen)
    }

    @Test("version hashes are stable and follow the storage shape")
    func versionHashes() {
        let first = ModelFixtures.people()
        let second = ModelFixtures.people()
        #expect(first.versionHash == second.versionHash)
        #expect(first.entityVersionHashesByName == second.entityVersionHashesByName)
        #expect(first.versionHash.count == 16)

        let changed = ModelFixtures.people()
        changed.entities[0].properties.append(AttributeDescription(name: "email", type: .string))
        #expect(changed.versionHash != first.versionHash)

        // Defaults and validation rules do not change the storage shape.
        let tuned = ModelFixtures.people()
        (tuned.entities[0].properties[1] as? AttributeDescription)?.defaultValue = 42
        (tuned.entities[0].properties[1] as? AttributeDescription)?.maxValue = 150
        #expect(tuned.versionHash == first.versionHash)
    }

    @Test("a frozen model refuses edits")
    func frozenModelIgnoresEdits() throws {
        let model = ModelFixtures.people()
        _ = try TestStack(model: model, kind: .inMemory)
        let entity = try #require(model.entitiesByName["Person"])
        entity.name = "Renamed"
        #expect(entity.name == "Person")
    }
}
