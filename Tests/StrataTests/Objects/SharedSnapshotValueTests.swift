import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data: each context has its own copy of an object, and `committedValues(forKeys:)` gives
/// the values last fetched or saved whatever the object holds now. A fetched object reads its
/// values and to-one targets from the row snapshot it was loaded with (one snapshot can be shared
/// by several contexts through the row cache) until its first change, which copies them into a
/// draft that its save makes its next snapshot when nothing else holds it
/// (`Stores/SnapshotBackedValues.swift`, `Stores/RowSnapshot.swift`): these tests fail if a
/// change reaches the snapshot, another context or the committed values.
@Suite("Values shared with the row snapshot")
struct SharedSnapshotValueTests {
    static func model() -> ManagedObjectModel {
        let note = EntityDescription(name: "Note")
        let folder = EntityDescription(name: "Folder")
        note.properties = [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "rank", type: .integer64),
            RelationshipDescription(name: "folder", destination: folder, inverse: "notes"),
        ]
        folder.properties = [
            AttributeDescription(name: "name", type: .string), RelationshipDescription(name: "notes", destination: note, inverse: "folder", toMany: true),
        ]
        return ManagedObjectModel(entities: [note, folder])
    }

    private func fetchNote(in context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
    }

    /// Saves one note, titled "first" with rank 1, through a context of its own.
    private func saveFirstNote(in stack: TestStack) throws {
        let writer = stack.newContext()
        try writer.performAndWait {
            let note = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: writer)
            note.setValue("first", forKey: "title")
            note.setValue(Int64(1), forKey: "rank")
            try writer.save()
        }
    }

    @Test("a change stays in its own context's object until saved; rollback and a save read the snapshot again", arguments: TestStack.Kind.allCases)
    func changeStaysLocal(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try saveFirstNote(in: stack)
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

    /// A fetched object, and a fault fired from the row its fetch left it, read their values in
    /// place from that row until their first change, which must leave the row as their snapshot.
    /// Core Data: `committedValues(forKeys:)`, `rollback()` and the save's optimistic locking
    /// (133020 against the version fetched) all still see the row as it was loaded.
    @Test("the first change of a fetched or fired object keeps the row it was loaded from as its snapshot", arguments: TestStack.Kind.allCases)
    func firstChangeKeepsLoadedRow(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        try saveFirstNote(in: stack)
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Note")
            request.returnsObjectsAsFaults = false
            let fetched = try #require(try reader.fetch(request).first)
            fetched.setValue("changed", forKey: "title")
            #expect(fetched.committedValues(forKeys: ["title"])["title"] as? String == "first")
            reader.rollback()
            #expect(fetched.value(forKey: "title") as? String == "first")
            reader.reset()
            let fault = try fetchNote(in: reader)
            #expect(fault.isFault)
            #expect(fault.value(forKey: "rank") as? Int64 == 1)  // fired from the row its fetch left it
            fault.setValue(Int64(5), forKey: "rank")
            #expect(fault.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
        }
        let other = stack.newContext()
        try other.performAndWait {
            try fetchNote(in: other).setValue(Int64(2), forKey: "rank")
            try other.save()
        }
        try reader.performAndWait {
            let error = try #require(throws: StrataError.self) { try reader.save() }
            #expect(error.code == StrataError.Code.managedObjectMerge)
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.cachedSnapshot["rank"] == "1")
            #expect(conflict.objectSnapshot["rank"] == "5")
        }
        try expectStoreHolds(title: "first", rank: 2, in: stack)
    }

    /// Checks what a fresh context fetches from the store: what the last root save wrote.
    private func expectStoreHolds(title: String, rank: Int64, in stack: TestStack) throws {
        let reader = stack.newContext()
        try reader.performAndWait {
            let note = try fetchNote(in: reader)
            #expect(note.value(forKey: "title") as? String == title)
            #expect(note.value(forKey: "rank") as? Int64 == rank)
        }
    }

    private func folderName(of note: ManagedObject) -> String? {
        (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
    }

    private func committedFolderName(of note: ManagedObject) -> String? {
        (note.committedValues(forKeys: ["folder"])["folder"] as? ManagedObject)?.value(forKey: "name") as? String
    }

    @Test("a to-one change stays in its own context's object until saved; rollback and a save read the snapshot again", arguments: TestStack.Kind.allCases)
    func toOneChangeStaysLocal(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let writer = stack.newContext()
        try writer.performAndWait {
            let folderEntity = try #require(stack.model.entitiesByName["Folder"])
            let inbox = ManagedObject(entity: folderEntity, insertInto: writer)
            inbox.setValue("inbox", forKey: "name")
            ManagedObject(entity: folderEntity, insertInto: writer).setValue("archive", forKey: "name")
            let note = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: writer)
            note.setValue("first", forKey: "title")
            note.setValue(inbox, forKey: "folder")
            try writer.save()
            // After the save the object reads its target from its new snapshot: still the same.
            #expect(folderName(of: note) == "inbox")
            #expect(committedFolderName(of: note) == "inbox")
        }
        let editor = stack.newContext()
        let reader = stack.newContext()
        let edited = try editor.performAndWait { try fetchNote(in: editor).objectID }
        #expect(try reader.performAndWait { folderName(of: try fetchNote(in: reader)) } == "inbox")

        try editor.performAndWait {
            let note = try editor.existingObject(with: edited)
            let archive = try #require(try editor.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).first { $0.value(forKey: "name") as? String == "archive" })
            note.setValue(archive, forKey: "folder")
            #expect(folderName(of: note) == "archive")
            #expect(committedFolderName(of: note) == "inbox")
            editor.rollback()
            #expect(folderName(of: note) == "inbox")
            #expect(note.value(forKey: "title") as? String == "first")
            note.setValue(archive, forKey: "folder")
        }
        #expect(try reader.performAndWait { folderName(of: try fetchNote(in: reader)) } == "inbox")
        try editor.performAndWait {
            try editor.save()
            let note = try editor.existingObject(with: edited)
            #expect(committedFolderName(of: note) == "archive")
            // A change after the save copies the saved targets again: the snapshot stays as saved.
            note.setValue(nil, forKey: "folder")
            #expect(note.value(forKey: "folder") == nil)
            #expect(committedFolderName(of: note) == "archive")
        }
        try reader.performAndWait {
            let note = try fetchNote(in: reader)
            reader.refresh(note, mergeChanges: false)
            #expect(folderName(of: note) == "archive")
        }
    }

    @Test("a child's save shares its changed values with the parent: later changes on either side stay on that side", arguments: TestStack.Kind.allCases)
    func childSaveSharesValues(kind: TestStack.Kind) throws {
        // Core Data: a child's save pushes its changes into the parent's objects; each context
        // then has its own copy again, and only the parent's save reaches the store.
        let stack = try TestStack(model: Self.model(), kind: kind)
        let parent = stack.newContext()
        let inserted = try parent.performAndWait {
            let note = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: parent)
            note.setValue("first", forKey: "title")
            note.setValue(Int64(1), forKey: "rank")
            try parent.save()
            // The inserted object's values became its snapshot; they read the same after it.
            #expect(note.value(forKey: "title") as? String == "first")
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "first")
            return note.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let note = try child.existingObject(with: inserted)
            note.setValue("child", forKey: "title")
            try child.save()
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "child")
            note.setValue(Int64(2), forKey: "rank")
        }
        try parent.performAndWait {
            let note = try parent.existingObject(with: inserted)
            #expect(note.value(forKey: "title") as? String == "child")
            #expect(note.value(forKey: "rank") as? Int64 == 1)
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "first")
            note.setValue("parent", forKey: "title")
        }
        try child.performAndWait {
            let note = try child.existingObject(with: inserted)
            #expect(note.value(forKey: "title") as? String == "child")
            #expect(note.value(forKey: "rank") as? Int64 == 2)
            #expect(note.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
        }
        try parent.performAndWait {
            try parent.save()
            let note = try parent.existingObject(with: inserted)
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "parent")
            note.setValue(Int64(3), forKey: "rank")
            #expect(note.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
        }
        try expectStoreHolds(title: "parent", rank: 1, in: stack)
    }

    @Test("an object a child inserted shares its values with the parent after the child's save; later changes stay on their side", arguments: TestStack.Kind.allCases)
    func childInsertSharesValues(kind: TestStack.Kind) throws {
        // Core Data: a child's save hands its inserted objects to the parent (still unsaved
        // there); the child's object and the parent's are separate copies from then on.
        let stack = try TestStack(model: Self.model(), kind: kind)
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let inserted = try child.performAndWait {
            let note = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: child)
            note.setValue("child", forKey: "title")
            note.setValue(Int64(1), forKey: "rank")
            try child.save()
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "child")
            note.setValue(Int64(2), forKey: "rank")
            #expect(note.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
            return note.objectID
        }
        try parent.performAndWait {
            let note = try parent.existingObject(with: inserted)
            #expect(note.isInserted)
            #expect(note.value(forKey: "rank") as? Int64 == 1)
            note.setValue("parent", forKey: "title")
        }
        try child.performAndWait {
            let note = try child.existingObject(with: inserted)
            #expect(note.value(forKey: "title") as? String == "child")
            #expect(note.value(forKey: "rank") as? Int64 == 2)
        }
        try parent.performAndWait {
            try parent.save()
            // The save gave the object its permanent ID: the temporary one names nothing now.
            let note = try fetchNote(in: parent)
            #expect(!note.objectID.isTemporaryID)
            #expect(note.committedValues(forKeys: ["title"])["title"] as? String == "parent")
            #expect(note.committedValues(forKeys: ["rank"])["rank"] as? Int64 == 1)
        }
        try expectStoreHolds(title: "parent", rank: 1, in: stack)
    }
}
