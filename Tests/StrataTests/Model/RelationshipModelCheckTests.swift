import Foundation
import Strata
import StrataTestSupport
import Testing

/// The model checks of relationships and inheritance, before any store is touched.
@Suite("Model checks: relationships and inheritance")
struct RelationshipModelCheckTests {
    func messages(_ model: ManagedObjectModel) throws -> String {
        let error = try #require(throws: StrataError.self) { try model.checkModel() }
        return error.underlyingErrors.map(\.message).joined(separator: "\n")
    }

    @Test("the graph fixtures are valid models")
    func fixturesPass() throws {
        for model in [GraphFixtures.company(), GraphFixtures.school(), GraphFixtures.music(), GraphFixtures.network()] {
            try model.checkModel()
        }
    }

    @Test("broken relationships are all reported at once")
    func brokenRelationships() throws {
        let a = EntityDescription(name: "A")
        let b = EntityDescription(name: "B")
        a.properties = [
            RelationshipDescription(name: "nowhere", destinationEntityName: "Missing"),
            RelationshipDescription(name: "toB", destination: b, inverse: "noSuchInverse"),
            RelationshipDescription(name: "mismatched", destination: b, inverse: "back"),
            RelationshipDescription(name: "orderedOne", destination: b, isOrdered: true),
            RelationshipDescription(name: "counts", destination: b, toMany: true, minCount: 5, maxCount: 2),
            RelationshipDescription(name: "both", destination: b, inverse: "bothBack", toMany: true, isOrdered: true),
        ]
        let transient = RelationshipDescription(name: "temporary", destination: b, inverse: "storedBack")
        transient.isTransient = true
        a.properties.append(transient)
        b.properties = [
            RelationshipDescription(name: "back", destination: a, inverse: "toB"),
            RelationshipDescription(name: "bothBack", destination: a, inverse: "both", toMany: true, isOrdered: true),
            RelationshipDescription(name: "storedBack", destination: a, inverse: "temporary", toMany: true),
        ]
        let text = try messages(ManagedObjectModel(entities: [a, b]))
        #expect(text.contains("'A.nowhere' has 'Missing', which is not in the model"))
        #expect(text.contains("names inverse 'noSuchInverse'"))
        #expect(text.contains("'A.mismatched' names inverse 'B.back', whose own inverse is 'toB'"))
        #expect(text.contains("'A.orderedOne' is ordered but not to-many"))
        #expect(text.contains("impossible count range 5…2"))
        #expect(text.contains("both ordered"))
        // A transient relationship is fine, but not with a stored inverse.
        #expect(text.contains("'A.temporary' is transient but its inverse 'B.storedBack' is not"))
    }

    @Test("inheritance: redeclared properties and cycles")
    func inheritance() throws {
        let base = EntityDescription(name: "Base")
        let sub = EntityDescription(name: "Sub")
        base.properties = [AttributeDescription(name: "name", type: .string)]
        sub.properties = [AttributeDescription(name: "name", type: .string)]
        base.subentities = [sub]
        #expect(try messages(ManagedObjectModel(entities: [base])).contains("redeclares property 'name' that it inherits"))

        let x = EntityDescription(name: "X")
        let y = EntityDescription(name: "Y")
        x.subentities = [y]
        y.subentities = [x]
        #expect(try messages(ManagedObjectModel(entities: [x, y])).contains("inherits from itself"))
    }
}
