import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Context basics")
struct ContextBasicsTests {
    @Test("insert, update, delete, save, with change sets and hooks", arguments: TestStack.Kind.allCases)
    func unitOfWork(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.allTypes(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            #expect(!context.hasChanges)
            let a = Sample(context: context)
            a.name = "a"
            let b = Sample(context: context)
            b.name = "b"
            #expect(context.hasChanges)
            #expect(context.insertedObjects == [a, b])
            #expect(a.objectID.isTemporaryID)
            #expect(a.isInserted)
            try context.save()
            #expect(!context.hasChanges)
            #expect(!a.objectID.isTemporaryID)
            #expect(!a.isInserted)
            #expect(context.insertedObjects.isEmpty)

            a.int64 = 7
            #expect(a.isUpdated)
            #expect(context.updatedObjects == [a])
            #expect(a.changedValues()["int64"] as? Int64 == 7)
            #expect(a.committedValues(forKeys: ["int64"])["int64"] as? Int64 == 0)
            context.delete(b)
            #expect(b.isDeleted)
            #expect(context.deletedObjects == [b])
            try context.save()
            #expect(b.managedObjectContext == nil)
            #expect(!context.hasChanges)
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let all = try reader.fetch(FetchRequest<Sample>(entityName: "Sample"))
            #expect(all.map(\.name) == ["a"])
            #expect(all.first?.int64 == 7)
        }
    }

    @Test("rollback restores saved values and drops inserts")
    func rollback() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let a = Sample(context: context)
            a.name = "saved"
            try context.save()
            a.name = "changed"
            let b = Sample(context: context)
            b.name = "new"
            context.rollback()
            #expect(a.name == "saved")
            #expect(!context.hasChanges)
            #expect(b.managedObjectContext == nil)
            #expect(try context.count(for: FetchRequest<Sample>(entityName: "Sample")) == 1)
        }
    }

    @Test("reset forgets every object")
    func reset() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let a = Sample(context: context)
            a.name = "a"
            try context.save()
            let id = a.objectID
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            #expect(a.managedObjectContext == nil)
            let again = try context.existingObject(with: id)
            #expect(again !== a)
            #expect((again as? Sample)?.name == "a")
        }
    }

    @Test("one instance per ID; clean objects are held weakly, changed ones strongly")
    func identityMap() throws {
        let stack = try TestStack.samples(3)
        let context = stack.newContext()
        try context.performAndWait {
            var fetched: [Sample]? = try context.fetch(FetchRequest<Sample>(entityName: "Sample"))
            let first = try #require(fetched?.first)
            #expect(context.object(with: first.objectID) === first)
            #expect(context.registeredObject(for: first.objectID) === first)
            first.name = "changed"
            let firstID = first.objectID
            fetched = nil
            // The changed object stays; the two clean ones are gone once the app lets go.
            #expect(context.registeredObjects.count == 1)
            #expect((context.registeredObject(for: firstID) as? Sample)?.name == "changed")
        }
    }

    @Test("object(with:) gives a fault without I/O; existingObject(with:) throws for a missing row")
    func lookups() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let writer = stack.newContext()
        let id: ManagedObjectID = try writer.performAndWait {
            let sample = Sample(context: writer)
            sample.name = "x"
            try writer.save()
            return sample.objectID
        }
        let recorder = stack.recordSQL()
        let reader = stack.newContext()
        try reader.performAndWait {
            let statements = recorder.statements { _ = reader.object(with: id) }
            #expect(statements.isEmpty)
            let object = reader.object(with: id)
            #expect(object.isFault)
            #expect((object as? Sample)?.name == "x")
            #expect(!object.isFault)
            try writer.performAndWait {
                writer.delete(writer.object(with: id))
                try writer.save()
            }
            reader.reset()
            let error = try #require(throws: StrataError.self) { try reader.existingObject(with: id) }
            #expect(error.code == StrataError.Code.managedObjectReferentialIntegrity)
        }
    }

    @Test("object IDs: URI round trip through the coordinator")
    func uriRepresentation() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            #expect(sample.objectID.uriRepresentation().absoluteString.hasPrefix("x-coredata:///Sample/t"))
            try context.save()
            let uri = sample.objectID.uriRepresentation()
            #expect(uri.absoluteString.hasPrefix("x-coredata://"))
            let resolved = try #require(stack.coordinator.managedObjectID(forURIRepresentation: uri))
            #expect(resolved == sample.objectID)
            #expect(resolved.hashValue == sample.objectID.hashValue)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Sample/p1")!) == nil)
        }
    }

    @Test("lifecycle hooks run at the right moments")
    func hooks() throws {
        let stack = try TestStack(model: HookedSample.model())
        let context = stack.newContext()
        try context.performAndWait {
            let object = HookedSample(context: context)
            #expect(object.events == ["awakeFromInsert"])
            try context.save()
            // willSave changed a value, so it ran a second time (a no-op), as in Core Data.
            #expect(object.events == ["awakeFromInsert", "willSave", "willSave", "didSave"])
            context.reset()
            let fetched = try #require(try context.fetch(FetchRequest<HookedSample>(entityName: "Hooked")).first)
            _ = fetched.value(forKey: "name")
            #expect(fetched.events == ["awakeFromFetch"])
            // willSave may change values; the second pass sees a stable object.
            #expect(fetched.value(forKey: "stamp") as? Int64 == 1)
        }
    }
}

/// An object that logs its lifecycle hooks.
final class HookedSample: ManagedObject {
    var events: [String] = []

    static func model() -> ManagedObjectModel {
        let entity = EntityDescription(name: "Hooked", managedObjectClass: HookedSample.self)
        entity.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "stamp", type: .integer64, isOptional: false, defaultValue: 0),
        ]
        return ManagedObjectModel(entities: [entity])
    }

    override func awakeFromInsert() { events.append("awakeFromInsert") }
    override func awakeFromFetch() { events.append("awakeFromFetch") }
    override func willSave() {
        events.append("willSave")
        // Touching a value in willSave dirties the object once; the next pass changes nothing.
        setValue(Int64(1), forKey: "stamp")
    }
    override func didSave() { events.append("didSave") }
}
