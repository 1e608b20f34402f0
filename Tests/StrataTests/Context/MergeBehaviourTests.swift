import Foundation
import Strata
import StrataTestSupport
import Testing

/// A note that counts its `prepareForDeletion()` calls.
final class CountingNote: ManagedObject {
    var preparedForDeletion = 0
    override func prepareForDeletion() { preparedForDeletion += 1 }
}

/// Merges of other contexts' saves, overlay fetches and delete hooks, each as Core Data does it
/// (issue #13). The facts and their sources are stated on each test.
@Suite("Merges, overlay fetches and delete hooks behave as in Core Data")
struct MergeBehaviourTests {
    /// Folder ⇄ notes (to-many, nullify both ways).
    static func model() -> ManagedObjectModel {
        let folder = EntityDescription(name: "Folder")
        let note = EntityDescription(name: "Note", managedObjectClass: CountingNote.self)
        folder.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            RelationshipDescription(name: "notes", destination: note, inverse: "folder", toMany: true),
        ]
        let scratch = AttributeDescription(name: "scratch", type: .string)
        scratch.isTransient = true
        note.properties = [
            AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
            scratch,
            RelationshipDescription(name: "folder", destination: folder, inverse: "notes"),
        ]
        return ManagedObjectModel(entities: [folder, note])
    }

    /// A saved folder with `count` notes; returns the folder's ID and the notes' IDs.
    static func seed(_ stack: TestStack, notes count: Int) throws -> (folder: ManagedObjectID, notes: [ManagedObjectID]) {
        let context = stack.newContext()
        return try context.performAndWait {
            let folder = ManagedObject(entity: try #require(stack.model.entitiesByName["Folder"]), insertInto: context)
            folder.setValue("inbox", forKey: "name")
            let notes = (0..<count).map { index -> ManagedObject in
                let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
                note.setValue("n\(index)", forKey: "title")
                note.setValue(folder, forKey: "folder")
                return note
            }
            try context.save()
            return (folder.objectID, notes.map(\.objectID))
        }
    }

    /// The did-save notification of `body`'s save in a new context.
    static func didSave(_ stack: TestStack, _ body: @escaping (ManagedObjectContext) throws -> Void) throws -> Notification {
        let writer = stack.newContext(name: "writer")
        let log = NotificationLog(writer, names: [.managedObjectContextDidSave])
        try writer.performAndWait {
            try body(writer)
            try writer.save()
        }
        let info = try #require(log.lastUserInfo[.managedObjectContextDidSave])
        return Notification(name: .managedObjectContextDidSave, object: writer, userInfo: info)
    }

    /// Core Data: merging a did-save that deleted an object leaves the receiving context's
    /// instance registered, with its last values readable, and marks it deleted; fetches no
    /// longer return it (CoreDataPlus's NotificationMergeTests, whose assertions run against
    /// Apple's Core Data, check `registeredObjects` keeps the object after such a merge).
    /// Strata keeps it out of `deletedObjects`: its row is already gone, a save has nothing to
    /// write for it (docs/object-graph.md, "Where Strata differs from Core Data").
    @Test("a merged deletion stays registered, realised and deleted; fetches skip it", arguments: TestStack.Kind.allCases)
    func mergedDeletion(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let seeded = try Self.seed(stack, notes: 3)
        let reader = stack.newContext(name: "reader")
        let (realised, fault, edited) = try reader.performAndWait {
            let realised = reader.object(with: seeded.notes[0])
            _ = realised.value(forKey: "title")
            let fault = reader.object(with: seeded.notes[1])
            let edited = try reader.existingObject(with: seeded.notes[2])
            edited.setValue("edited here", forKey: "title")
            return (realised, fault, edited)
        }
        let changes = NotificationLog(reader, names: [.managedObjectContextObjectsDidChange])
        let notification = try Self.didSave(stack) { writer in
            for id in seeded.notes { writer.delete(writer.object(with: id)) }
        }
        try reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            for object in [realised, fault, edited] {
                #expect(object.managedObjectContext === reader)
                #expect(object.isDeleted)
                #expect(reader.registeredObject(for: object.objectID) === object)
                #expect(!object.isFault)
            }
            #expect(realised.value(forKey: "title") as? String == "n0")
            #expect(edited.value(forKey: "title") as? String == "edited here")
            // Nothing left to write: the rows are gone already.
            #expect(reader.deletedObjects.isEmpty && reader.updatedObjects.isEmpty)
            #expect(!reader.hasChanges)
            let request = FetchRequest<ManagedObject>(entityName: "Note")
            #expect(try reader.fetch(request).isEmpty)
            #expect(try reader.count(for: request) == 0)
            let deleted = changes.lastUserInfo[.managedObjectContextObjectsDidChange]?[ManagedObjectContext.NotificationKey.deletedObjectIDs] as? Set<ManagedObjectID>
            #expect(deleted == Set(seeded.notes))
            try reader.save()
        }
    }

    /// Core Data: "the context you're merging into … faults in the ones that have been newly
    /// inserted" and reports them as inserted (Apple's mergeChanges(fromContextDidSave:)
    /// discussion and CoreDataPlus's NotificationMergeTests, where `registeredObjects` holds the
    /// merged insert). Strata holds them until the block that merges ends, as Core Data's
    /// autorelease pool does.
    @Test("a merged insertion is registered, with the saved values", arguments: TestStack.Kind.allCases)
    func mergedInsertion(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let reader = stack.newContext(name: "reader")
        var newID: ManagedObjectID?
        let notification = try Self.didSave(stack) { writer in
            let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: writer)
            note.setValue("fresh", forKey: "title")
            try writer.obtainPermanentIDs(for: [note])
            newID = note.objectID
        }
        let id = try #require(newID)
        let changes = NotificationLog(reader, names: [.managedObjectContextObjectsDidChange])
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            let registered = reader.registeredObject(for: id)
            #expect(registered != nil)
            #expect(registered?.value(forKey: "title") as? String == "fresh")
            #expect(reader.registeredObjects.contains { $0.objectID == id })
            #expect(!reader.hasChanges)
        }
        let inserted = changes.lastUserInfo[.managedObjectContextObjectsDidChange]?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>
        #expect(inserted == [id])
    }

    /// Strata keeps no clean object alive past the block that merged it (Core Data's
    /// autorelease pool drains at the end of a `perform` block): a long-lived context that
    /// merges many saves does not accumulate their objects.
    @Test("merged insertions are held only until the merging block ends")
    func mergedInsertionReleased() throws {
        let stack = try TestStack(model: Self.model())
        let reader = stack.newContext(name: "reader")
        var newID: ManagedObjectID?
        let notification = try Self.didSave(stack) { writer in
            let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: writer)
            try writer.obtainPermanentIDs(for: [note])
            newID = note.objectID
        }
        let id = try #require(newID)
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(reader.registeredObject(for: id) != nil)
        }
        reader.performAndWait { #expect(reader.registeredObject(for: id) == nil) }
    }

    /// Core Data: merging a save refreshes every registered object the save updated, faults
    /// included, so a to-many read from a fault is read again (Apple: "refresh the registered
    /// objects that have been changed"). Reading an attribute first must not be needed.
    @Test("a fault's to-many read before a merge shows the merged contents", arguments: TestStack.Kind.allCases)
    func staleToManyOfFault(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let seeded = try Self.seed(stack, notes: 1)
        for automatic in [false, true] {
            let reader = stack.newContext(name: "reader")
            reader.automaticallyMergesChangesFromParent = automatic
            let folder = reader.performAndWait {
                let folder = reader.object(with: seeded.folder)
                _ = folder.mutableSetValue(forKey: "notes").count
                return folder
            }
            let before = reader.performAndWait { folder.mutableSetValue(forKey: "notes").count }
            let changes = NotificationLog(reader, names: [.managedObjectContextObjectsDidChange])
            let notification = try Self.didSave(stack) { writer in
                let note = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: writer)
                note.setValue("added", forKey: "title")
                note.setValue(writer.object(with: seeded.folder), forKey: "folder")
            }
            if !automatic {
                reader.performAndWait { reader.mergeChanges(fromContextDidSave: notification) }
            }
            // An automatic merge runs on the reader's queue after the save; this waits behind it.
            let after = reader.performAndWait { folder.mutableSetValue(forKey: "notes").count }
            #expect(after == before + 1, "automatic: \(automatic)")
            let updated = changes.lastUserInfo[.managedObjectContextObjectsDidChange]?[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>
            #expect(updated?.contains(seeded.folder) == true, "automatic: \(automatic)")
        }
    }

    /// Core Data merges a save's updates with `refresh(_:mergeChanges: true)`, which keeps an
    /// object's transient values (NSManagedObjectContext.refresh(_:mergeChanges:): with
    /// `true`, "the object's property values are reloaded … then any changes that were made
    /// (in the local context) are re-applied"; only `false` discards transient values).
    @Test("a merged update keeps the object's transient values", arguments: TestStack.Kind.allCases)
    func mergeKeepsTransients(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let seeded = try Self.seed(stack, notes: 1)
        let reader = stack.newContext(name: "reader")
        let note = try reader.performAndWait {
            let note = reader.object(with: seeded.notes[0])
            _ = note.value(forKey: "title")
            note.setValue("kept", forKey: "scratch")
            try reader.save()  // the object is unchanged again; its transient value stays
            #expect(!note.hasChanges && note.value(forKey: "scratch") as? String == "kept")
            return note
        }
        let notification = try Self.didSave(stack) { writer in writer.object(with: seeded.notes[0]).setValue("new title", forKey: "title") }
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(note.value(forKey: "title") as? String == "new title")
            #expect(note.value(forKey: "scratch") as? String == "kept")
            // The same for refresh(_:mergeChanges:) on an unchanged object: true keeps the
            // transient value, false discards it.
            reader.refresh(note, mergeChanges: true)
            #expect(note.value(forKey: "scratch") as? String == "kept")
            reader.refresh(note, mergeChanges: false)
            #expect(note.value(forKey: "scratch") == nil)
        }
    }

    /// Core Data: with `returnsObjectsAsFaults = false` every returned object is realised
    /// (NSFetchRequest.returnsObjectsAsFaults: "the objects returned from the fetch are
    /// pre-populated with their property values"), also when unsaved inserts of the entity are
    /// merged into the results.
    @Test("returnsObjectsAsFaults = false realises store rows of a fetch overlaid with unsaved inserts", arguments: TestStack.Kind.allCases)
    func overlayFetchRealises(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        _ = try Self.seed(stack, notes: 4)
        let context = stack.newContext()
        try context.performAndWait {
            let extra = ManagedObject(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: context)
            extra.setValue("unsaved", forKey: "title")
            let request = FetchRequest<ManagedObject>(entityName: "Note")
            request.returnsObjectsAsFaults = false
            request.sortDescriptors = [ObjectSortDescriptor(key: "title", ascending: true)]
            let results = try context.fetch(request)
            #expect(results.count == 5)
            #expect(results.allSatisfy { !$0.isFault })
            #expect(results.map { $0.value(forKey: "title") as? String } == ["n0", "n1", "n2", "n3", "unsaved"])
            // The default still returns faults for store rows.
            let faults = try context.fetch(FetchRequest<ManagedObject>(entityName: "Folder"))
            #expect(faults.count == 1)
        }
    }

    /// Core Data calls `prepareForDeletion()` each time `delete(_:)` is called, also on an object
    /// already deleted (NSManagedObject.prepareForDeletion: "invoked automatically by the Core
    /// Data framework when the receiver is about to be deleted"; peer suites observe one call
    /// per `delete(_:)`).
    @Test("prepareForDeletion runs on delete(_:) and again on a second delete(_:)", arguments: TestStack.Kind.allCases)
    func prepareForDeletionEveryDelete(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let seeded = try Self.seed(stack, notes: 1)
        let context = stack.newContext()
        try context.performAndWait {
            let saved = try #require(context.object(with: seeded.notes[0]) as? CountingNote)
            context.delete(saved)
            #expect(saved.preparedForDeletion == 1)
            context.delete(saved)
            #expect(saved.preparedForDeletion == 2)
            #expect(saved.isDeleted && context.deletedObjects.count == 1)
            let unsaved = CountingNote(entity: try #require(stack.model.entitiesByName["Note"]), insertInto: context)
            context.delete(unsaved)
            context.delete(unsaved)
            #expect(unsaved.preparedForDeletion == 2)
            try context.save()
        }
    }
}
