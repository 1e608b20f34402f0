import Foundation
import Strata
import StrataTestSupport
import Testing

/// A team that allows at most two members, by overriding `validateValue(_:forKey:)`.
final class SmallTeam: ManagedObject {
    @Attribute("name") var name: String
    /// The keys and sizes `validateValue` was called with, in order.
    nonisolated(unsafe) static var calls: [(String, Int)] = []

    override func validateValue(_ value: Any?, forKey key: String) throws {
        if key == "members" {
            let count = (value as? Set<ManagedObject>)?.count ?? -1
            Self.calls.append((key, count))
            if count > 2 {
                throw StrataError(
                    code: StrataError.Code.managedObjectValidation, message: "a small team has at most two members",
                    entityName: entity.name, key: key, objectID: objectID)
            }
        }
        try super.validateValue(value, forKey: key)
    }
}

@Suite("validateValue(_:forKey:) for to-many relationships", .serialized)
struct ToManyValidationTests {
    static func model() -> ManagedObjectModel {
        let team = EntityDescription(name: "SmallTeam", managedObjectClass: SmallTeam.self)
        let member = EntityDescription(name: "Member", managedObjectClass: ManagedObject.self)
        team.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "members", destinationEntityName: "Member", inverse: "team", toMany: true, deleteRule: .cascade),
        ]
        member.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "team", destinationEntityName: "SmallTeam", inverse: "members", deleteRule: .nullify),
        ]
        return ManagedObjectModel(entities: [team, member])
    }

    @Test("the override sees a new object's to-many and a changed one, and its error fails the save")
    func toManyOverride() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        try context.performAndWait {
            SmallTeam.calls = []
            let team = SmallTeam(context: context)
            team.name = "a"
            for name in ["x", "y"] {
                let member = ManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Member"]), insertInto: context)
                member.setValue(name, forKey: "name")
                member.setValue(team, forKey: "team")
            }
            try context.save()
            #expect(SmallTeam.calls.map(\.0) == ["members"])
            #expect(SmallTeam.calls.map(\.1) == [2])

            SmallTeam.calls = []
            team.name = "renamed"  // the to-many did not change: not validated again
            try context.save()
            #expect(SmallTeam.calls.isEmpty)

            let third = ManagedObject(entity: try #require(stack.coordinator.managedObjectModel.entitiesByName["Member"]), insertInto: context)
            third.setValue("z", forKey: "name")
            team.mutableSetValue(forKey: "members").add(third)
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.allErrors.contains { $0.key == "members" && $0.message.contains("at most two") })
            #expect(context.hasChanges)
            team.mutableSetValue(forKey: "members").remove(third)
            context.delete(third)
            try context.save()
        }
    }
}
