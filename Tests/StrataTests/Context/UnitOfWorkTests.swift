import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Records every change a unit of work reports, and whether the unit of work was consistent
/// when it reported it. Used on one context's queue.
final class RecordingObserver: UnitOfWorkObserver {
    private(set) var changes: [UnitOfWorkChange] = []
    private(set) var alwaysConsistent = true

    func unitOfWork(_ unitOfWork: UnitOfWork, didRecord change: UnitOfWorkChange) {
        changes.append(change)
        if !unitOfWork.checkConsistency(of: change.object) { alwaysConsistent = false }
    }

    var kinds: Set<UnitOfWorkChange.Kind> { Set(changes.map(\.kind)) }

    /// The kinds and previous states recorded since `index`.
    func recorded(since index: Int) -> [String] {
        changes[index...].map { "\($0.kind)<-\($0.previous)" }
    }
}

/// The unit of work's bookkeeping (Core Data's `insertedObjects` / `updatedObjects` /
/// `deletedObjects` and each object's `isInserted` / `isUpdated` / `isDeleted`) through every
/// operation that changes it, with the unit of work's own consistency check after each step.
@Suite("Unit of work")
struct UnitOfWorkTests {
    func person(_ context: ManagedObjectContext, _ name: String, age: Int = 30) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue(name, forKey: "name")
        person.setValue(age, forKey: "age")
        return person
    }

    /// Checks the context's three sets (by identity) and the unit of work's invariants.
    func expectBooks(
        _ context: ManagedObjectContext, inserted: [ManagedObject] = [], updated: [ManagedObject] = [], deleted: [ManagedObject] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        func ids(_ objects: some Sequence<ManagedObject>) -> Set<ObjectIdentifier> { Set(objects.map(ObjectIdentifier.init)) }
        #expect(ids(context.insertedObjects) == ids(inserted), "inserted", sourceLocation: sourceLocation)
        #expect(ids(context.updatedObjects) == ids(updated), "updated", sourceLocation: sourceLocation)
        #expect(ids(context.deletedObjects) == ids(deleted), "deleted", sourceLocation: sourceLocation)
        #expect(context.hasChanges == !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty), "hasChanges", sourceLocation: sourceLocation)
        #expect(context.state.work.checkConsistency(), "invariants", sourceLocation: sourceLocation)
    }

    func storeCount(_ stack: TestStack) throws -> Int {
        let reader = stack.newContext()
        return try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
    }

    /// A stack with one saved person; returns its ID.
    func savedPerson(_ kind: TestStack.Kind) throws -> (TestStack, ManagedObjectID) {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let setup = stack.newContext()
        let id = try setup.performAndWait {
            let ann = try person(setup, "Ann")
            try setup.save()
            return ann.objectID
        }
        return (stack, id)
    }

    // Core Data: a new object is in insertedObjects (isInserted) until saved, and editing it
    // does not make it updated.
    @Test("insert: the object is inserted, and stays only inserted when edited", arguments: TestStack.Kind.allCases)
    func insert(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = try person(context, "Ann")
            #expect(ann.isInserted && !ann.isUpdated && !ann.isDeleted)
            expectBooks(context, inserted: [ann])
            ann.setValue(31, forKey: "age")
            expectBooks(context, inserted: [ann])
        }
    }

    // Core Data: editing a saved object puts it in updatedObjects (isUpdated).
    @Test("edit: a saved object becomes updated, once", arguments: TestStack.Kind.allCases)
    func edit(kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        context.performAndWait {
            let ann = context.object(with: id)
            expectBooks(context)
            ann.setValue(40, forKey: "age")
            ann.setValue("Anna", forKey: "name")
            #expect(ann.isUpdated)
            expectBooks(context, updated: [ann])
        }
    }

    // Core Data: deleting a saved object puts it in deletedObjects (isDeleted) and out of
    // updatedObjects.
    @Test("delete: a changed saved object moves from updated to deleted", arguments: TestStack.Kind.allCases)
    func delete(kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        context.performAndWait {
            let ann = context.object(with: id)
            ann.setValue(40, forKey: "age")
            context.delete(ann)
            #expect(ann.isDeleted && !ann.isUpdated)
            expectBooks(context, deleted: [ann])
        }
    }

    // Core Data: deleting an object that was inserted and never saved simply removes it from the
    // pending inserts; there is nothing to delete in the store, so the context has no changes.
    @Test("delete of an inserted object: nothing to save, nothing written", arguments: TestStack.Kind.allCases)
    func deleteInserted(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = try person(context, "Ann")
            context.delete(ann)
            #expect(ann.isDeleted)
            expectBooks(context)
            try context.save()
            expectBooks(context)
        }
        #expect(try storeCount(stack) == 0)
    }

    // Core Data: rollback() "removes everything from the undo stack, discards all insertions and
    // deletions, and restores updated objects to their last committed values"; re-inserting a
    // deleted object undoes the delete.
    @Test("undelete: rollback restores a deleted object; re-inserting one undoes its delete", arguments: TestStack.Kind.allCases)
    func undelete(kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = context.object(with: id)
            ann.setValue(40, forKey: "age")
            context.delete(ann)
            let bo = try person(context, "Bo")
            context.rollback()
            #expect(!ann.isDeleted && !ann.isUpdated)
            #expect(ann.value(forKey: "age") as? Int64 == 30)
            #expect(bo.managedObjectContext == nil)
            expectBooks(context)
            // Re-inserting a deleted object: it is updated again if it had changes, else unchanged.
            ann.setValue(41, forKey: "age")
            context.delete(ann)
            context.insert(ann)
            expectBooks(context, updated: [ann])
            context.rollback()
            context.delete(ann)
            context.insert(ann)
            expectBooks(context)
        }
    }

    // Core Data: after a successful save the context has no changes, inserted objects have
    // permanent IDs, deleted objects are no longer registered.
    @Test("save: every set empties, inserted objects get permanent IDs, deleted ones leave", arguments: TestStack.Kind.allCases)
    func save(kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = context.object(with: id)
            ann.setValue(40, forKey: "age")
            let bo = try person(context, "Bo")
            let cy = try person(context, "Cy")
            try context.save()
            context.delete(cy)
            let dee = try person(context, "Dee")
            expectBooks(context, inserted: [dee], deleted: [cy])
            try context.save()
            expectBooks(context)
            #expect(!bo.objectID.isTemporaryID && !dee.objectID.isTemporaryID)
            #expect(!ann.hasChanges && !bo.hasChanges)
            #expect(cy.managedObjectContext == nil && !cy.isDeleted)
            #expect(context.registeredObject(for: bo.objectID) === bo)
        }
        #expect(try storeCount(stack) == 3)
    }

    // Core Data: reset() forgets every registered object and every unsaved change.
    @Test("reset: every set empties and every object is detached", arguments: TestStack.Kind.allCases)
    func reset(kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        try context.performAndWait {
            let ann = context.object(with: id)
            ann.setValue(40, forKey: "age")
            let bo = try person(context, "Bo")
            context.reset()
            expectBooks(context)
            #expect(ann.managedObjectContext == nil && bo.managedObjectContext == nil)
            #expect(!ann.hasChanges && !bo.hasChanges)
            #expect(context.registeredObjects.isEmpty)
        }
    }

    // Core Data: a child context's save pushes its inserts, updates and deletes into its parent,
    // which then has them as its own unsaved changes.
    @Test("child save: the child's inserts, updates and deletes become the parent's", arguments: TestStack.Kind.allCases)
    func childSave(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let parent = stack.newContext(name: "parent")
        parent.retainsRegisteredObjects = true
        let (keptID, doomedID): (ManagedObjectID, ManagedObjectID) = try parent.performAndWait {
            let kept = try person(parent, "kept")
            let doomed = try person(parent, "doomed")
            try parent.save()
            return (kept.objectID, doomed.objectID)
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let newID: ManagedObjectID = try child.performAndWait {
            child.object(with: keptID).setValue(50, forKey: "age")
            child.delete(child.object(with: doomedID))
            let new = try person(child, "new")
            expectBooks(child, inserted: [new], updated: [child.object(with: keptID)], deleted: [child.object(with: doomedID)])
            try child.save()
            expectBooks(child)
            return new.objectID
        }
        try parent.performAndWait {
            let new = parent.object(with: newID)
            let kept = parent.object(with: keptID)
            let doomed = parent.object(with: doomedID)
            expectBooks(parent, inserted: [new], updated: [kept], deleted: [doomed])
            #expect(kept.value(forKey: "age") as? Int64 == 50)
            try parent.save()
            expectBooks(parent)
        }
        #expect(try storeCount(stack) == 2)
    }

    // Core Data: under NSMergeByPropertyStoreTrumpMergePolicy the store's state wins, so an object
    // whose row another context deleted is dropped; under NSMergeByPropertyObjectTrumpMergePolicy
    // the in-memory state wins, so the object is written back.
    @Test(
        "conflict resolution: an edited object whose row was deleted elsewhere leaves (store trump) or is written back (object trump)",
        arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump], TestStack.Kind.allCases)
    func conflictWithDeletedRow(policy: MergePolicy, kind: TestStack.Kind) throws {
        let (stack, id) = try savedPerson(kind)
        let context = stack.newContext()
        context.mergePolicy = policy
        let ann = context.performAndWait {
            let ann = context.object(with: id)
            ann.setValue(40, forKey: "age")
            return ann
        }
        let other = stack.newContext()
        try other.performAndWait {
            other.delete(other.object(with: id))
            try other.save()
        }
        try context.performAndWait {
            try context.save()
            expectBooks(context)
            if policy == .mergeByPropertyStoreTrump {
                #expect(ann.managedObjectContext == nil)
            } else {
                #expect(ann.managedObjectContext === context && !ann.hasChanges)
            }
        }
        #expect(try storeCount(stack) == (policy == .mergeByPropertyStoreTrump ? 0 : 1))
    }

    // MARK: The change hook

    // Every change of an object's change state or values passes through the unit of work's one
    // hook; an observer (an undo manager or history writer later) hears of each kind.
    @Test("the change hook reports every kind of change, each once the unit of work is consistent")
    func changeHook() throws {
        let (stack, id) = try savedPerson(.sqlite)
        let context = stack.newContext(name: "observed")
        let observer = RecordingObserver()
        context.performAndWait { context.state.work.addObserver(observer) }
        let other = stack.newContext(name: "other")
        let log = NotificationLog(other, names: [.managedObjectContextDidSave])

        try context.performAndWait {
            let bo = try person(context, "Bo")
            #expect(observer.recorded(since: 0).prefix(3) == ["inserted<-none", "updated<-inserted", "updated<-inserted"])
            try context.save()
            #expect(observer.changes.last?.kind == .saved && observer.changes.last?.object === bo)
            var mark = observer.changes.count
            bo.setValue(32, forKey: "age")
            context.refresh(bo, mergeChanges: false)
            context.delete(bo)
            context.insert(bo)
            context.delete(bo)
            context.rollback()
            #expect(observer.recorded(since: mark) == ["updated<-none", "refreshed<-updated", "deleted<-none", "undeleted<-deleted", "deleted<-none", "rolledBack<-deleted"])
            mark = observer.changes.count
            context.object(with: id).setValue(41, forKey: "age")
            #expect(observer.recorded(since: mark) == ["updated<-none"])
        }
        // Another context's save, merged: the edited object's values are merged.
        try other.performAndWait {
            other.object(with: id).setValue("Anna", forKey: "name")
            try other.save()
        }
        let info = try #require(log.lastUserInfo[.managedObjectContextDidSave])
        context.performAndWait {
            let mark = observer.changes.count
            context.mergeChanges(fromContextDidSave: Notification(name: .managedObjectContextDidSave, object: other, userInfo: info))
            #expect(observer.recorded(since: mark) == ["merged<-updated"])
        }
        // A conflict resolved by a merge policy, then the save.
        try other.performAndWait {
            other.object(with: id).setValue(7, forKey: "age")
            try other.save()
        }
        context.mergePolicy = .mergeByPropertyObjectTrump
        try context.performAndWait {
            let mark = observer.changes.count
            context.object(with: id).setValue(42, forKey: "age")
            try context.save()
            #expect(observer.recorded(since: mark) == ["updated<-updated", "merged<-updated", "saved<-updated"])
            let kept = context.object(with: id)
            let beforeReset = observer.changes.count
            context.reset()
            let forgotten = observer.changes[beforeReset...]
            #expect(forgotten.allSatisfy { $0.kind == .forgotten } && forgotten.contains { $0.object === kept })
        }
        // A fault whose row another context deleted: firing it finds the row gone.
        let cyID = try other.performAndWait {
            let cy = try person(other, "Cy")
            try other.save()
            return cy.objectID
        }
        let cyFault = context.performAndWait { context.object(with: cyID) }
        try other.performAndWait {
            other.delete(other.object(with: cyID))
            try other.save()
        }
        try context.performAndWait {
            let mark = observer.changes.count
            try cyFault.fulfillFault()
            #expect(observer.recorded(since: mark) == ["vanished<-none"])
        }
        #expect(observer.kinds == Set(UnitOfWorkChange.Kind.allCases))
        #expect(observer.alwaysConsistent)
        // Unsubscribed: nothing more is heard.
        try context.performAndWait {
            context.state.work.removeObserver(observer)
            let count = observer.changes.count
            _ = try person(context, "Cy")
            #expect(observer.changes.count == count)
        }
    }
}
