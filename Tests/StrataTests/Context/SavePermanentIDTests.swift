import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A save hands every inserted object a permanent ID (Core Data: after `save()`,
/// `objectID.isTemporaryID` is false and `object(with:)` of the new ID is the same object). The
/// SQLite store reports the new IDs by the inserts' positions in the change set
/// (`SaveChangesResult.insertedIDs`) instead of a dictionary; these tests check the cases where
/// positions are not enough: references between new objects, saves split across stores (each
/// part counts its own positions), and results that list inserts in another order.
@Suite("Permanent IDs after a save")
struct SavePermanentIDTests {
    /// Folder (name) ←→> Note (title, folder), each entity in a configuration of its own.
    static func model() -> ManagedObjectModel {
        let folder = EntityDescription(name: "Folder")
        let note = EntityDescription(name: "Note")
        folder.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "notes", destination: note, inverse: "folder", toMany: true),
        ]
        note.properties = [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "folder", destination: folder, inverse: "notes"),
        ]
        let model = ManagedObjectModel(entities: [folder, note])
        model.setEntities([folder], forConfigurationName: "Folders")
        model.setEntities([note], forConfigurationName: "Notes")
        return model
    }

    @Test("new objects that refer to each other, inserted in either order, are saved with each other's new keys")
    func referencesBetweenNewObjects() throws {
        let stack = try TestStack(model: Self.model(), kind: .sqlite)
        let context = stack.newContext()
        try context.performAndWait {
            // Notes inserted before their folders and after them.
            for index in 0..<20 {
                let early = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
                early.setValue("early \(index)", forKey: "title")
                let folder = ManagedObject(entity: stack.model.entitiesByName["Folder"]!, insertInto: context)
                folder.setValue("folder \(index)", forKey: "name")
                let late = ManagedObject(entity: stack.model.entitiesByName["Note"]!, insertInto: context)
                late.setValue("late \(index)", forKey: "title")
                early.setValue(folder, forKey: "folder")
                late.setValue(folder, forKey: "folder")
            }
            let inserted = Array(context.insertedObjects)
            try context.save()
            for object in inserted {
                #expect(!object.objectID.isTemporaryID)
                #expect(context.object(with: object.objectID) === object)
            }
            let notes = inserted.filter { $0.entity.name == "Note" }
            #expect(notes.count == 40)
            for note in notes {
                let folder = try #require(note.value(forKey: "folder") as? ManagedObject)
                #expect(!folder.objectID.isTemporaryID)
            }
        }
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let notes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            #expect(notes.count == 40)
            for note in notes {
                let title = try #require(note.value(forKey: "title") as? String)
                let folder = try #require(note.value(forKey: "folder") as? ManagedObject)
                // "early 7" and "late 7" belong to "folder 7".
                #expect(folder.value(forKey: "name") as? String == "folder " + String(title.split(separator: " ")[1]))
            }
        }
    }

    @Test("a save split across two stores gives every object its own store's ID, whatever order the objects were inserted in")
    func saveAcrossStores() throws {
        let model = Self.model()
        let directory = TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let folders = try coordinator.addPersistentStore(type: .sqlite, configuration: "Folders", at: directory.file("folders.sqlite"))
        let notes = try coordinator.addPersistentStore(type: .sqlite, configuration: "Notes", at: directory.file("notes.sqlite"))
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            // Alternating entities: each store's part of the change set holds every other insert,
            // so no position in a part is the object's position in the context.
            var objects: [(ManagedObject, String)] = []
            for index in 0..<25 {
                let folder = ManagedObject(entity: model.entitiesByName["Folder"]!, insertInto: context)
                folder.setValue("folder \(index)", forKey: "name")
                let note = ManagedObject(entity: model.entitiesByName["Note"]!, insertInto: context)
                note.setValue("note \(index)", forKey: "title")
                objects += [(folder, "folder \(index)"), (note, "note \(index)")]
            }
            try context.save()
            var seen = Set<ManagedObjectID>()
            for (object, label) in objects {
                #expect(!object.objectID.isTemporaryID)
                #expect(seen.insert(object.objectID).inserted)
                #expect(object.objectID.storeIdentifier == (label.hasPrefix("folder") ? folders : notes).identifier)
                #expect(context.object(with: object.objectID) === object)
            }
        }
        let reader = ManagedObjectContext(concurrencyType: .privateQueue)
        reader.persistentStoreCoordinator = coordinator
        try reader.performAndWait {
            let names = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).compactMap { $0.value(forKey: "name") as? String }
            let titles = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }
            #expect(Set(names) == Set((0..<25).map { "folder \($0)" }))
            #expect(Set(titles) == Set((0..<25).map { "note \($0)" }))
        }
        for store in coordinator.persistentStores { try coordinator.remove(store) }
    }

    @Test("a result's IDs by position answer only for the temporary ID at that position; the rest come from its dictionary")
    func resultByPosition() throws {
        let stack = try TestStack(model: Self.model(), kind: .sqlite)
        let context = stack.newContext()
        let (first, second, third) = try context.performAndWait {
            let folder = stack.model.entitiesByName["Folder"]!
            let objects = (0..<3).map { _ in ManagedObject(entity: folder, insertInto: context) }
            try context.obtainPermanentIDs(for: [objects[2]])
            return (objects[0].objectID, objects[1].objectID, objects[2].objectID)
        }
        let newFirst = try #require(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(stack.coordinator.persistentStores[0].identifier)/Folder/p101")!))
        let newSecond = try #require(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://\(stack.coordinator.persistentStores[0].identifier)/Folder/p102")!))
        var result = SaveChangesResult(permanentIDs: [second: newSecond])
        result.insertedIDs = [.init(temporary: first, permanent: newFirst), .init(temporary: third, permanent: third)]
        #expect(result.hasPermanentIDs)
        #expect(result.permanentID(ofInsertAt: 0, temporary: first) == newFirst)
        // Another object at that position, or a position the list does not reach: not answered.
        #expect(result.permanentID(ofInsertAt: 0, temporary: second) == nil)
        #expect(result.permanentID(ofInsertAt: 5, temporary: second) == nil)
        #expect(result.allPermanentIDs == [first: newFirst, second: newSecond, third: third])
        #expect(!SaveChangesResult().hasPermanentIDs)
        #expect(SaveChangesResult(permanentIDs: [second: newSecond]).allPermanentIDs == [second: newSecond])
    }
}
