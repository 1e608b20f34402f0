import Foundation
import Strata
import StrataTestSupport
import Testing

/// Core Data: the did-save notification's `NSInsertedObjectsKey` and `NSUpdatedObjectsKey` hold
/// exactly the objects the save wrote, whatever earlier objects-did-change notifications
/// reported. A save reuses the sets of the objects-did-change that opens it when they are all
/// of its inserts or updates (`PostedSaveSets` in `ManagedObjectContext+Notifications.swift`);
/// these tests fail if it reuses them when they are not.
@Suite("Did-save sets")
struct DidSaveSetsTests {
    private typealias Key = ManagedObjectContext.NotificationKey

    private func identities(_ value: Any?) -> Set<ObjectIdentifier>? {
        (value as? Set<ManagedObject>).map { Set($0.map(ObjectIdentifier.init)) }
    }

    private func identities(_ objects: [ManagedObject]) -> Set<ObjectIdentifier> {
        Set(objects.map(ObjectIdentifier.init))
    }

    @Test("the did-save reports what the save wrote: one event, changes over two events, a willSave that inserts or touches", arguments: TestStack.Kind.allCases)
    func didSaveSets(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Tracked.model(), kind: kind)
        let context = stack.newContext()
        let log = NotificationLog(context, names: [.managedObjectContextObjectsDidChange, .managedObjectContextDidSave])
        try context.performAndWait {
            let a = Tracked(context: context)
            let b = Tracked(context: context)
            try context.save()

            // One event: the objects-did-change that opens the save reports the same sets.
            a.setValue(Int64(1), forKey: "stamp")
            b.setValue(Int64(1), forKey: "stamp")
            let c = Tracked(context: context)
            try context.save()
            var saved = try #require(log.lastUserInfo[.managedObjectContextDidSave])
            #expect(identities(saved[Key.updatedObjects]) == identities([a, b]))
            #expect(identities(saved[Key.insertedObjects]) == identities([c]))
            #expect(saved[Key.updatedObjectIDs] as? Set<ManagedObjectID> == [a.objectID, b.objectID])
            let insertedIDs = try #require(saved[Key.insertedObjectIDs] as? Set<ManagedObjectID>)
            #expect(insertedIDs == [c.objectID])
            #expect(insertedIDs.allSatisfy { !$0.isTemporaryID })

            // A willSave that inserts an object: the save writes more than was reported.
            let d = Tracked(context: context)
            d.spawns = true
            try context.save()
            saved = try #require(log.lastUserInfo[.managedObjectContextDidSave])
            let spawned = try #require(d.spawned)
            #expect(identities(saved[Key.insertedObjects]) == identities([d, spawned]))
            #expect((saved[Key.insertedObjectIDs] as? Set<ManagedObjectID>)?.count == 2)

            // A willSave that changes an unchanged object: it joins the updated set.
            a.setValue(Int64(2), forKey: "stamp")
            a.touches = b
            try context.save()
            saved = try #require(log.lastUserInfo[.managedObjectContextDidSave])
            #expect(identities(saved[Key.updatedObjects]) == identities([a, b]))
            #expect(saved[Key.updatedObjectIDs] as? Set<ManagedObjectID> == [a.objectID, b.objectID])
        }

        // Changes over two events: the objects-did-change opening the save reports only the
        // second event's; the did-save reports both.
        let ids = try context.performAndWait {
            let objects = try context.fetch(FetchRequest<Tracked>(entityName: "Tracked"))
            objects[0].setValue(Int64(3), forKey: "stamp")
            return objects.map(\.objectID)
        }
        try context.performAndWait {
            let first = context.object(with: ids[0])
            let second = context.object(with: ids[1])
            second.setValue(Int64(3), forKey: "stamp")
            try context.save()
            let opened = try #require(log.lastUserInfo[.managedObjectContextObjectsDidChange])
            #expect(identities(opened[Key.updatedObjects]) == identities([second]))
            let saved = try #require(log.lastUserInfo[.managedObjectContextDidSave])
            #expect(identities(saved[Key.updatedObjects]) == identities([first, second]))
            #expect(saved[Key.updatedObjectIDs] as? Set<ManagedObjectID> == [ids[0], ids[1]])
        }
    }
}
