import Foundation
import Strata
import StrataTestSupport
import Testing

/// Optimistic locking between a child and its parent context: a child's save into its parent
/// conflicts (133020) when the parent's object changed since the child read it — a sibling
/// saved into the parent, or the parent itself changed it — as Core Data's nested contexts do.
/// Without it, two siblings doing read-modify-write on one object lose an update.
@Suite("Conflicts between a child and its parent context")
struct ChildSaveConflictTests {
    struct Setup {
        let stack: TestStack
        let parent: ManagedObjectContext
        let id: ManagedObjectID
    }

    /// One saved account (balance 100), a root parent context.
    func setup() throws -> Setup {
        let stack = try TestStack(model: MergePolicyTests.model())
        let parent = stack.newContext(name: "parent")
        let id: ManagedObjectID = try parent.performAndWait {
            let account = ManagedObject(entity: try #require(stack.model.entitiesByName["Account"]), insertInto: parent)
            account.setValue("shared", forKey: "name")
            account.setValue(100, forKey: "balance")
            try parent.save()
            return account.objectID
        }
        return Setup(stack: stack, parent: parent, id: id)
    }

    func child(of parent: ManagedObjectContext, _ name: String, policy: MergePolicy = .error) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        child.name = name
        child.mergePolicy = policy
        child.retainsRegisteredObjects = true  // keeps what it read between blocks
        return child
    }

    func balance(_ context: ManagedObjectContext, _ id: ManagedObjectID) -> Int64? {
        context.performAndWait { context.object(with: id).value(forKey: "balance") as? Int64 }
    }

    @Test(".error: the second sibling's read-modify-write conflicts instead of overwriting the first's")
    func siblingsConflict() throws {
        let setup = try setup()
        let a = child(of: setup.parent, "A")
        let b = child(of: setup.parent, "B")
        #expect(balance(a, setup.id) == 100)
        #expect(balance(b, setup.id) == 100)
        try a.performAndWait {
            a.object(with: setup.id).setValue(Int64(110), forKey: "balance")  // +10
            try a.save()
        }
        try b.performAndWait {
            let account = b.object(with: setup.id)
            account.setValue(Int64(120), forKey: "balance")  // +20, from the stale 100
            let error = try #require(throws: StrataError.self) { try b.save() }
            #expect(error.code == StrataError.Code.managedObjectMerge)
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.objectID == setup.id)
            #expect(conflict.cachedSnapshot["balance"] == "100")
            #expect(conflict.persistedSnapshot?["balance"] == "110")
            #expect(conflict.objectSnapshot["balance"] == "120")
            #expect(b.hasChanges)
            // The usual answer: refresh, redo, save again.
            b.refresh(account, mergeChanges: false)
            let current = try #require(account.value(forKey: "balance") as? Int64)
            account.setValue(current + 20, forKey: "balance")
            try b.save()
        }
        #expect(balance(setup.parent, setup.id) == 130)
    }

    @Test(".error: a child's change conflicts with a change the parent made after the child read the object")
    func parentChangedSinceRead() throws {
        let setup = try setup()
        let a = child(of: setup.parent, "A")
        #expect(balance(a, setup.id) == 100)
        setup.parent.performAndWait { setup.parent.object(with: setup.id).setValue("renamed", forKey: "name") }
        a.performAndWait {
            a.object(with: setup.id).setValue(Int64(90), forKey: "balance")
            #expect(throws: StrataError.self) { try a.save() }
        }
        #expect(balance(setup.parent, setup.id) == 100)
    }

    @Test(".error: deleting an object the parent changed since the child read it conflicts")
    func deleteConflicts() throws {
        let setup = try setup()
        let a = child(of: setup.parent, "A")
        let b = child(of: setup.parent, "B")
        #expect(balance(a, setup.id) == 100)
        try b.performAndWait {
            b.object(with: setup.id).setValue(Int64(150), forKey: "balance")
            try b.save()
        }
        try a.performAndWait {
            a.delete(a.object(with: setup.id))
            let error = try #require(throws: StrataError.self) { try a.save() }
            #expect(error.code == StrataError.Code.managedObjectMerge)
        }
        #expect(balance(setup.parent, setup.id) == 150)
    }

    @Test("a child's change to an object its parent rolled back conflicts, and leaves nothing behind in the parent")
    func parentRolledBack() throws {
        let setup = try setup()
        let entity = try #require(setup.stack.model.entitiesByName["Account"])
        let fresh: ManagedObjectID = setup.parent.performAndWait {
            let account = ManagedObject(entity: entity, insertInto: setup.parent)
            account.setValue("unsaved", forKey: "name")
            return account.objectID
        }
        let a = child(of: setup.parent, "A")
        a.performAndWait { #expect(a.object(with: fresh).value(forKey: "name") as? String == "unsaved") }
        setup.parent.performAndWait { setup.parent.rollback() }
        try a.performAndWait {
            a.object(with: fresh).setValue("edited", forKey: "name")
            let error = try #require(throws: StrataError.self) { try a.save() }
            #expect(error.code == StrataError.Code.managedObjectMerge)
            #expect(error.conflicts.first?.newVersionNumber == 0)
        }
        // The parent's own next save is not poisoned by the object it no longer has.
        try setup.parent.performAndWait {
            setup.parent.object(with: setup.id).setValue(Int64(101), forKey: "balance")
            try setup.parent.save()
        }
        #expect(balance(setup.stack.newContext(), setup.id) == 101)
    }

    @Test("mergeByPropertyObjectTrump: siblings changing different properties both keep their change")
    func objectTrumpMergesProperties() throws {
        let setup = try setup()
        let a = child(of: setup.parent, "A", policy: .mergeByPropertyObjectTrump)
        let b = child(of: setup.parent, "B", policy: .mergeByPropertyObjectTrump)
        #expect(balance(a, setup.id) == 100)
        #expect(balance(b, setup.id) == 100)
        try a.performAndWait {
            a.object(with: setup.id).setValue("note from A", forKey: "note")
            try a.save()
        }
        try b.performAndWait {
            b.object(with: setup.id).setValue(Int64(75), forKey: "balance")
            try b.save()
        }
        setup.parent.performAndWait {
            let account = setup.parent.object(with: setup.id)
            #expect(account.value(forKey: "note") as? String == "note from A")
            #expect(account.value(forKey: "balance") as? Int64 == 75)
        }
    }

    @Test("a child that read the parent's current values saves without conflict, repeatedly")
    func noFalseConflicts() throws {
        let setup = try setup()
        let a = child(of: setup.parent, "A")
        for step in 1...3 {
            try a.performAndWait {
                let account = a.object(with: setup.id)
                let current = try #require(account.value(forKey: "balance") as? Int64)
                account.setValue(current + 1, forKey: "balance")
                try a.save()
            }
            #expect(balance(setup.parent, setup.id) == 100 + Int64(step))
        }
        try setup.parent.performAndWait { try setup.parent.save() }
        #expect(balance(setup.stack.newContext(), setup.id) == 103)
    }
}
