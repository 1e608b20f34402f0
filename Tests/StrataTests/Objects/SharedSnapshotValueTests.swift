import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data: each context has its own copy of an object, and `committedValues(forKeys:)` gives
/// the values last fetched or saved whatever the object holds now. A fetched object reads its
/// values from the row snapshot it was loaded with (one snapshot can be shared by several
/// contexts through the row cache) until its first change (`Stores/StoredValues.swift`): these
/// tests fail if a change reaches the snapshot, another context or the committed values.
@Suite("Values shared with the row snapshot")
struct SharedSnapshotValueTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note")
        note.properties = [AttributeDescription(name: "title", type: .string), AttributeDescription(name: "rank", type: .integer64)]
        return ManagedObjectModel(entities: [note])
    }

    private func fetchNote(in context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
    }

    @Test("a change stays in its own context's object until saved; rollback and a save read the snapshot again", arguments: TestStack.Kind.allCases)
    func changeStaysLocal(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let writer = stack.newContext()
        try writer.performAndWait {
            let note = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: writer)
            note.setValue("first", forKey: "title")
            note.setValue(Int64(1), forKey: "rank")
            try writer.save()
        }
        let editor = stack.newContext()
        let reader = stack.newContext()
        let edited = try editor.performAndWait { try fetchNote(in: editor).objectID }
        let firstRead = try reader.performAndWait { try fetchNote(in: reader).value(forKey: "title") as? String }
        #expect(firstRead == "first")

        try editor.performAndWait {
            let note = try editor.existingObject(with: edited)
            note.setValue("second", forKey: "title")
            #expect(note.value(forKey: "title") as? String == "second")
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "first")
            #expect(note.changedValues()["title"] as? String == "second")
            editor.rollback()
            #expect(note.value(forKey: "title") as? String == "first")
            #expect(note.value(forKey: "rank") as? Int64 == 1)
            note.setValue("third", forKey: "title")
        }
        try reader.performAndWait {
            let note = try fetchNote(in: reader)
            #expect(note.value(forKey: "title") as? String == "first")
        }
        try editor.performAndWait {
            try editor.save()
            let note = try editor.existingObject(with: edited)
            #expect(!note.hasChanges)
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "third")
            // A change after the save copies the saved values again: the snapshot stays as saved.
            note.setValue(Int64(2), forKey: "rank")
            #expect(note.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
            #expect(note.value(forKey: "title") as? String == "third")
        }
        try reader.performAndWait {
            let note = try fetchNote(in: reader)
            reader.refresh(note, mergeChanges: false)
            #expect(note.value(forKey: "title") as? String == "third")
            #expect(note.value(forKey: "rank") as? Int64 == 1)
        }
    }
}
