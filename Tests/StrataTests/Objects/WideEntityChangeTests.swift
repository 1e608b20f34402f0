import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data: `changedValues()` holds every persistent property changed since the last fetch or
/// save, and a save writes each of them, whatever the entity's number of properties. An object
/// keeps the marks of its first 64 properties in itself and the rest in its side record
/// (`Objects/ObjectState.swift`, `ManagedObject.changedMask`): these tests change properties on
/// both sides of that line.
@Suite("Changes to entities of more than 64 properties")
struct WideEntityChangeTests {
    static let attributeCount = 70

    static func model() -> ManagedObjectModel {
        let wide = EntityDescription(name: "Wide")
        var properties: [PropertyDescription] = (0..<attributeCount).map {
            AttributeDescription(name: "a\($0)", type: .integer64, isOptional: false, defaultValue: Int64(0))
        }
        let tag = EntityDescription(name: "Tag")
        tag.properties = [
            AttributeDescription(name: "label", type: .string),
            RelationshipDescription(name: "owner", destination: wide, inverse: "tags"),
        ]
        properties.append(RelationshipDescription(name: "tags", destination: tag, inverse: "owner", toMany: true))
        wide.properties = properties
        return ManagedObjectModel(entities: [wide, tag])
    }

    @Test("changes past the 64th property are reported, saved, and cleared by the save", arguments: TestStack.Kind.allCases)
    func changesPastSixtyFour(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let writer = stack.newContext()
        let id = try writer.performAndWait {
            let object = ManagedObject(entity: try #require(stack.model.entitiesByName["Wide"]), insertInto: writer)
            try writer.save()
            return object.objectID
        }
        let editor = stack.newContext()
        try editor.performAndWait {
            let object = try editor.existingObject(with: id)
            object.setValue(Int64(2), forKey: "a2")
            object.setValue(Int64(66), forKey: "a66")
            object.setValue(Int64(69), forKey: "a69")
            let tag = ManagedObject(entity: try #require(stack.model.entitiesByName["Tag"]), insertInto: editor)
            tag.setValue(object, forKey: "owner")
            let changed = object.changedValues()
            #expect(Set(changed.keys) == ["a2", "a66", "a69", "tags"])
            #expect(changed["a66"] as? Int64 == 66)
            #expect(object.committedValues(forKeys: ["a69"])["a69"] as? Int64 == 0)
            try editor.save()
            #expect(!object.hasChanges)
            #expect(object.changedValues().isEmpty)
            // A later change past 64 is reported alone: the save cleared the earlier marks.
            object.setValue(Int64(68), forKey: "a68")
            #expect(Set(object.changedValues().keys) == ["a68"])
            editor.rollback()
            #expect(object.changedValues().isEmpty)
            #expect(object.value(forKey: "a68") as? Int64 == 0)
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let object = try reader.existingObject(with: id)
            #expect(object.value(forKey: "a2") as? Int64 == 2)
            #expect(object.value(forKey: "a66") as? Int64 == 66)
            #expect(object.value(forKey: "a69") as? Int64 == 69)
            #expect(object.value(forKey: "a68") as? Int64 == 0)
            #expect((object.value(forKey: "tags") as? Set<ManagedObject>)?.count == 1)
        }
    }
}
