import Foundation
import Strata
import StrataTestSupport
import Testing

/// `includesSubentities`, fetch request templates with substitution variables, and
/// `$VARIABLE` substitution in predicates.
@Suite("Fetch request features")
struct FetchRequestFeaturesTests {
    static func zooModel() -> ManagedObjectModel {
        let animal = EntityDescription(name: "Animal")
        let dog = EntityDescription(name: "Dog")
        let cat = EntityDescription(name: "Cat")
        let puppy = EntityDescription(name: "Puppy")
        animal.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "legs", type: .integer16, isOptional: false, defaultValue: Int16(4)),
        ]
        dog.properties = [AttributeDescription(name: "barks", type: .boolean, isOptional: false, defaultValue: true)]
        cat.properties = [AttributeDescription(name: "lives", type: .integer16, isOptional: false, defaultValue: Int16(9))]
        animal.subentities = [dog, cat]
        dog.subentities = [puppy]
        return ManagedObjectModel(entities: [animal, dog, cat, puppy])
    }

    static func insertZoo(_ context: ManagedObjectContext, _ model: ManagedObjectModel) throws {
        for (entityName, name) in [("Animal", "Generic"), ("Dog", "Rex"), ("Cat", "Tom"), ("Puppy", "Bit"), ("Dog", "Fido"), ("Animal", "Snake")] {
            let animal = ManagedObject(entity: try #require(model.entitiesByName[entityName]), insertInto: context)
            animal.setValue(name, forKey: "name")
            if name == "Snake" { animal.setValue(Int16(0), forKey: "legs") }
        }
    }

    enum Engine: String, CaseIterable, CustomStringConvertible {
        case sqlite, inMemoryStore, unsavedObjects
        var description: String { rawValue }
    }

    func names(_ context: ManagedObjectContext, _ entity: String, subentities: Bool, predicate: String? = nil) throws -> [String] {
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: entity)
            request.includesSubentities = subentities
            request.predicate = predicate.map { ObjectPredicate(format: $0) }
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            let names = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
            let count = try context.count(for: request)
            #expect(count == names.count)
            return names
        }
    }

    @Test("includesSubentities", arguments: Engine.allCases)
    func subentities(engine: Engine) throws {
        let stack = try TestStack(model: Self.zooModel(), kind: engine == .sqlite ? .sqlite : .inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insertZoo(context, stack.model)
            if engine != .unsavedObjects { try context.save() }
        }
        #expect(try names(context, "Animal", subentities: true) == ["Bit", "Fido", "Generic", "Rex", "Snake", "Tom"])
        #expect(try names(context, "Animal", subentities: false) == ["Generic", "Snake"])
        #expect(try names(context, "Dog", subentities: true) == ["Bit", "Fido", "Rex"])
        #expect(try names(context, "Dog", subentities: false) == ["Fido", "Rex"])
        #expect(try names(context, "Puppy", subentities: true) == ["Bit"])
        #expect(try names(context, "Animal", subentities: true, predicate: "legs > 0") == ["Bit", "Fido", "Generic", "Rex", "Tom"])
        // A sub-entity's own attributes are known on the sub-entity.
        #expect(try names(context, "Dog", subentities: true, predicate: "barks == YES") == ["Bit", "Fido", "Rex"])
        // Dictionary results follow includesSubentities too.
        let counts = try context.performAndWait {
            try [true, false].map { subentities -> Int in
                let request = FetchRequest<NSDictionary>(entityName: "Animal")
                request.resultType = .dictionaryResultType
                request.includesSubentities = subentities
                // The unsaved engine's objects count only with the opt-in (Core Data's
                // dictionary results reflect the store alone).
                request.dictionaryResultsIncludePendingChanges = true
                request.propertiesToFetch = [ExpressionDescription(name: "n", expression: ObjectExpression(forFunction: "count:", arguments: [ObjectExpression(forKeyPath: "name")]))]
                return (try context.fetch(request).first?["n"] as? NSNumber)?.intValue ?? -1
            }
        }
        #expect(counts == [6, 2])
    }

    @Test("fetch request templates with substitution variables", arguments: TestStack.Kind.allCases)
    func templates(kind: TestStack.Kind) throws {
        let model = Self.zooModel()
        let template = FetchRequest<ManagedObject>(entityName: "Animal")
        template.predicate = ObjectPredicate(format: "name BEGINSWITH[c] $PREFIX AND legs >= $MIN_LEGS")
        template.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: false)]
        model.setFetchRequestTemplate(template, forName: "byPrefix")
        let all = FetchRequest<ManagedObject>(entityName: "Dog")
        all.includesSubentities = false
        model.setFetchRequestTemplate(all, forName: "adultDogs")
        #expect(model.fetchRequestTemplateNames == ["adultDogs", "byPrefix"])
        // The stored template is a copy: changing the original later changes nothing.
        template.fetchLimit = 1
        #expect(model.fetchRequestTemplate(forName: "byPrefix")?.fetchLimit == 0)
        #expect(model.fetchRequestTemplate(forName: "missing") == nil)

        let stack = try TestStack(model: model, kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            try Self.insertZoo(context, stack.model)
            try context.save()
            let request = try model.fetchRequestFromTemplate(withName: "byPrefix", substitutionVariables: ["PREFIX": "r", "MIN_LEGS": 1])
            #expect(request.predicate?.predicateFormat == "name BEGINSWITH[c] \"r\" AND legs >= 1")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "name") as? String } == ["Rex"])
            let sorted = try model.fetchRequestFromTemplate(withName: "byPrefix", substitutionVariables: ["PREFIX": "", "MIN_LEGS": 0])
            #expect(try context.fetch(sorted).compactMap { $0.value(forKey: "name") as? String } == ["Tom", "Snake", "Rex", "Generic", "Fido", "Bit"])
            let dogs = try model.fetchRequestFromTemplate(withName: "adultDogs", substitutionVariables: [:])
            #expect(try context.count(for: dogs) == 2)
            // Each call gives an independent request.
            sorted.fetchLimit = 2
            #expect(try model.fetchRequestFromTemplate(withName: "byPrefix", substitutionVariables: ["PREFIX": "", "MIN_LEGS": 0]).fetchLimit == 0)
        }
        let missingVariable = try #require(throws: StrataError.self) {
            try model.fetchRequestFromTemplate(withName: "byPrefix", substitutionVariables: ["PREFIX": "r"])
        }
        #expect(missingVariable.message.contains("$MIN_LEGS"))
        let unusable = try #require(throws: StrataError.self) {
            try model.fetchRequestFromTemplate(withName: "byPrefix", substitutionVariables: ["PREFIX": "r", "MIN_LEGS": NSObject()])
        }
        #expect(unusable.message.contains("$MIN_LEGS"))
        let unknown = try #require(throws: StrataError.self) {
            try model.fetchRequestFromTemplate(withName: "nope", substitutionVariables: [:])
        }
        #expect(unknown.message.contains("nope"))
    }

    @Test("withSubstitutionVariables replaces variables and leaves SUBQUERY variables alone")
    func substitution() throws {
        let predicate = ObjectPredicate(format: "age > $MIN AND SUBQUERY(items, $x, $x.price < $MAX).@count > 0")
        let filled = predicate.withSubstitutionVariables(["MIN": 18, "MAX": 9.5, "x": "ignored"])
        #expect(filled.predicateFormat == "age > 18 AND SUBQUERY(items, $x, $x.price < 9.5).@count > 0")
        #expect(predicate.withSubstitutionVariables(["MIN": 18]).predicateFormat == "age > 18 AND SUBQUERY(items, $x, $x.price < $MAX).@count > 0")
        // A variable left unset fails when the predicate is used.
        #expect(throws: StrataError.self) { try predicate.evaluate(throwingWith: ["age": 20, "items": [[String: Any]]()]) }
        #expect(try predicate.evaluate(throwingWith: ["age": 20, "items": [["price": 3]]], substitutionVariables: ["MIN": 18, "MAX": 5]))
        #expect(try !predicate.evaluate(throwingWith: ["age": 20, "items": [["price": 7]]], substitutionVariables: ["MIN": 18, "MAX": 5]))
    }
}
