import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `ObjectUndoManager`, one behaviour per test, on both stores where a store is involved.
///
/// The Core Data and Foundation facts each test relies on, with their sources:
/// - Apple, `NSManagedObjectContext.undoManager`: "The default value is `nil`"; with no undo
///   manager, nothing is recorded (setting it to nil speeds up imports).
/// - Apple, `NSManagedObjectContext.processPendingChanges()`: it "causes changes to registered
///   managed objects to be recorded with the undo manager"; `undo()` "reverse[s] the latest
///   uncommitted changes applied to objects in the object graph".
/// - Apple, `NSManagedObjectContext.rollback()`: "Removes everything from the undo stack".
///   `reset()` forgets every object, so recorded actions could only refer to forgotten objects.
/// - Apple, `UndoManager.groupsByEvent`: default true; when off, groups must be closed explicitly
///   before `undo()`. `beginUndoGrouping()`: groups nest. `endUndoGrouping()` without a begin
///   raises in Foundation (here: does nothing). `levelsOfUndo`: the maximum number of top-level
///   groups kept, 0 for no limit. `disableUndoRegistration()` / `enableUndoRegistration()`
///   balance like a counter.
/// - Apple, `NSPropertyDescription.isTransient`: transient properties are "still managed for
///   undo, redo, validation, and so on".
@Suite("Undo manager")
struct UndoManagerTests {
    /// A stack with a saved box "B1" holding items 1 and 2, and tag 3 on item 1.
    func seeded(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: UndoGraph.model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let box = try UndoGraph.insert("Box", key: 1, into: context)
            box.setValue("B1", forKey: "name")
            let one = try UndoGraph.insert("Item", key: 1, into: context)
            one.setValue("one", forKey: "title")
            let two = try UndoGraph.insert("Item", key: 2, into: context)
            two.setValue("two", forKey: "title")
            box.setValue([one, two], forKey: "items")
            let tag = try UndoGraph.insert("Tag", key: 3, into: context)
            one.setValue(Set([tag]), forKey: "tags")
            try context.save()
        }
        return stack
    }

    /// The object of `entityName` with `key`, fetched into `context`. Call on its queue.
    func object(_ entityName: String, _ key: Int64, in context: ManagedObjectContext) throws -> ManagedObject {
        let request = FetchRequest<ManagedObject>(entityName: entityName)
        request.predicate = ObjectPredicate(format: "key == %@", key)
        return try #require(try context.fetch(request).first)
    }

    /// A context with a fresh undo manager.
    func undoContext(_ stack: TestStack) -> (ManagedObjectContext, ObjectUndoManager) {
        let context = stack.newContext(name: "undoable")
        let undo = ObjectUndoManager()
        context.performAndWait { context.undoManager = undo }
        return (context, undo)
    }

    @Test("a context has no undo manager by default and records nothing without one")
    func defaultIsNil() throws {
        let stack = try seeded(.inMemory)
        let context = stack.newContext()
        try context.performAndWait {
            #expect(context.undoManager == nil)
            #expect(context.state.registry.reportsEveryValueChange == false)
            try object("Item", 1, in: context).setValue("changed", forKey: "title")
            let undo = ObjectUndoManager()
            context.undoManager = undo
            #expect(context.state.registry.reportsEveryValueChange)
            #expect(!undo.canUndo)
            context.undoManager = nil
            #expect(context.state.registry.reportsEveryValueChange == false)
        }
    }

    @Test("undo puts an attribute back, redo applies it again", arguments: TestStack.Kind.allCases)
    func attributeUndoRedo(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait {
            let item = try object("Item", 1, in: context)
            item.setValue("first", forKey: "title")
            return item
        }
        context.performAndWait {
            #expect(undo.canUndo && !undo.canRedo)
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "one")
            #expect(!undo.canUndo && undo.canRedo)
            undo.redo()
            #expect(item.value(forKey: "title") as? String == "first")
            #expect(undo.canUndo && !undo.canRedo)
        }
    }

    @Test("each perform block is one group; processPendingChanges closes a group inside a block")
    func groupsByEvent() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait {
            #expect(undo.groupsByEvent)
            item.setValue("a", forKey: "title")
            item.setValue(Int64(1), forKey: "score")
        }
        context.performAndWait {
            item.setValue("b", forKey: "title")
            context.processPendingChanges()
            item.setValue("c", forKey: "title")
        }
        context.performAndWait {
            #expect(undo.undoStack.count == 3)
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "b")
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "a")
            #expect(item.value(forKey: "score") as? Int64 == 1)
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "one")
            #expect(item.value(forKey: "score") as? Int64 == 0)
        }
    }

    @Test("groupsByEvent off: only explicit groups are recorded; nested groups are one top-level group")
    func explicitGroups() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        try context.performAndWait {
            undo.groupsByEvent = false
            let item = try object("Item", 1, in: context)
            item.setValue("outside", forKey: "title")  // no group open: not recorded
            undo.beginUndoGrouping()
            item.setValue("outer", forKey: "title")
            undo.beginUndoGrouping()
            item.setValue(Int64(7), forKey: "score")
            undo.endUndoGrouping()
            context.processPendingChanges()  // does not close an explicit group
            #expect(undo.undoStack.isEmpty)
            undo.endUndoGrouping()
            #expect(undo.undoStack.count == 1)
            undo.beginUndoGrouping()
            item.setValue("second", forKey: "title")
            undo.endUndoGrouping()
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "outer")
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "outside")
            #expect(item.value(forKey: "score") as? Int64 == 0)
            #expect(!undo.canUndo)
        }
    }

    @Test("with groupsByEvent on, an explicit group inside a block is part of the block's group")
    func explicitGroupInsideEvent() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        try context.performAndWait {
            let item = try object("Item", 1, in: context)
            item.setValue("before", forKey: "title")
            undo.beginUndoGrouping()
            item.setValue(Int64(3), forKey: "score")
            undo.endUndoGrouping()
        }
        context.performAndWait {
            #expect(undo.undoStack.count == 1)
        }
    }

    @Test("undo with an explicit group open at one level closes it first")
    func undoClosesOneOpenGroup() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        try context.performAndWait {
            undo.groupsByEvent = false
            let item = try object("Item", 1, in: context)
            undo.beginUndoGrouping()
            item.setValue("open", forKey: "title")
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "one")
            #expect(undo.canRedo)
        }
    }

    @Test("levelsOfUndo keeps the newest groups only; 0 keeps all")
    func levelsOfUndo() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait { #expect(undo.levelsOfUndo == 0) }
        for score in 1...5 {
            context.performAndWait { item.setValue(Int64(score), forKey: "score") }
        }
        context.performAndWait {
            #expect(undo.undoStack.count == 5)
            undo.levelsOfUndo = 2
            #expect(undo.undoStack.count == 2)
        }
        context.performAndWait { item.setValue(Int64(6), forKey: "score") }
        context.performAndWait {
            #expect(undo.undoStack.count == 2)
            undo.undo()
            undo.undo()
            #expect(!undo.canUndo)
            #expect(item.value(forKey: "score") as? Int64 == 4)
        }
    }

    @Test("removeAllActions empties both stacks")
    func removeAllActions() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait { item.setValue("a", forKey: "title") }
        context.performAndWait { item.setValue("b", forKey: "title") }
        context.performAndWait {
            undo.undo()
            #expect(undo.canUndo && undo.canRedo)
            undo.removeAllActions()
            #expect(!undo.canUndo && !undo.canRedo)
            #expect(item.value(forKey: "title") as? String == "a")
        }
    }

    @Test("rollback and reset remove all actions", arguments: TestStack.Kind.allCases)
    func rollbackAndReset(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        try context.performAndWait { try object("Item", 1, in: context).setValue("x", forKey: "title") }
        context.performAndWait {
            #expect(undo.canUndo)
            context.rollback()
            #expect(!undo.canUndo && !undo.canRedo)
        }
        try context.performAndWait { try object("Item", 1, in: context).setValue("y", forKey: "title") }
        context.performAndWait {
            undo.undo()
            #expect(undo.canRedo)
            context.reset()
            #expect(!undo.canUndo && !undo.canRedo)
        }
    }

    @Test("disabled registration records nothing; disable and enable nest")
    func disabledRegistration() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait {
            undo.disableUndoRegistration()
            undo.disableUndoRegistration()
            #expect(!undo.isUndoRegistrationEnabled)
            item.setValue("hidden", forKey: "title")
            _ = try? UndoGraph.insert("Tag", key: 9, into: context)
            undo.enableUndoRegistration()
            #expect(!undo.isUndoRegistrationEnabled)
            item.setValue(Int64(5), forKey: "score")
        }
        context.performAndWait {
            #expect(!undo.canUndo)
            undo.enableUndoRegistration()
            #expect(undo.isUndoRegistrationEnabled)
            undo.enableUndoRegistration()  // unbalanced: nothing happens
            #expect(undo.isUndoRegistrationEnabled)
            item.setValue("seen", forKey: "title")
        }
        context.performAndWait {
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "hidden")
            #expect(item.value(forKey: "score") as? Int64 == 5)
        }
    }

    @Test("action names follow the group through undo and redo")
    func actionNames() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait {
            item.setValue("renamed", forKey: "title")
            undo.setActionName("Rename")
            #expect(undo.undoActionName == "Rename")
        }
        context.performAndWait {
            item.setValue(Int64(2), forKey: "score")
        }
        context.performAndWait {
            undo.setActionName("Score")  // no open group: names the last one
            #expect(undo.undoActionName == "Score")
            #expect(undo.redoActionName == "")
            undo.undo()
            #expect(undo.undoActionName == "Rename")
            #expect(undo.redoActionName == "Score")
            undo.undo()
            #expect(undo.undoActionName == "")
            #expect(undo.redoActionName == "Rename")
        }
    }

    @Test("undo and redo post objects-did-change; isUndoing and isRedoing are true meanwhile")
    func notifications() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        let seen = UndoTestLocked<[String]>([])
        // Posted on the context's queue, where the manager may be used.
        nonisolated(unsafe) let manager = undo
        let token = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            let updated = (note.userInfo?[ManagedObjectContext.NotificationKey.updatedObjects] as? Set<ManagedObject>)?.count ?? 0
            let flags = manager.isUndoing ? "undoing" : manager.isRedoing ? "redoing" : "edit"
            seen.withLock { $0.append("\(flags):\(updated)") }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        context.performAndWait { item.setValue("x", forKey: "title") }
        context.performAndWait {
            undo.undo()
            undo.redo()
            #expect(!undo.isUndoing && !undo.isRedoing)
        }
        #expect(seen.withLock { $0 } == ["edit:1", "undoing:1", "redoing:1"])
    }

    @Test("changes applied by undo are not recorded; a new change empties the redo stack")
    func undoIsNotRecorded() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait { item.setValue("a", forKey: "title") }
        context.performAndWait { item.setValue("b", forKey: "title") }
        context.performAndWait { undo.undo() }
        context.performAndWait {
            #expect(undo.undoStack.count == 1 && undo.redoStack.count == 1)
            item.setValue("c", forKey: "title")
            #expect(!undo.canRedo)
        }
        context.performAndWait {
            #expect(undo.undoStack.count == 2)
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "a")
        }
    }

    @Test("bad use never traps: undo or redo with nothing to do, end without begin")
    func badUse() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        context.performAndWait {
            undo.undo()
            undo.redo()
            undo.endUndoGrouping()
            undo.enableUndoRegistration()
            undo.setActionName("nothing")
            #expect(!undo.canUndo && !undo.canRedo && undo.undoActionName == "")
        }
        // A manager not attached to a context does nothing either.
        let loose = ObjectUndoManager()
        loose.undo()
        loose.redo()
        #expect(!loose.canUndo)
    }

    @Test("a manager serves one context: giving it to a second one is refused and reported by save")
    func oneContextPerManager() throws {
        let stack = try seeded(.inMemory)
        let (first, undo) = undoContext(stack)
        defer { withExtendedLifetime(first) {} }
        let second = stack.newContext(name: "second")
        try second.performAndWait {
            second.undoManager = undo
            #expect(second.undoManager == nil)
            try object("Item", 1, in: second).setValue("z", forKey: "title")
            #expect(throws: StrataError.self) { try second.save() }
        }
    }

    @Test("inserts and deletes: undo removes an insert and brings a delete back with its relationships", arguments: TestStack.Kind.allCases)
    func insertAndDelete(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let (box, one, tag) = try context.performAndWait { (try object("Box", 1, in: context), try object("Item", 1, in: context), try object("Tag", 3, in: context)) }
        let fresh = try context.performAndWait {
            let fresh = try UndoGraph.insert("Item", key: 10, into: context)
            fresh.setValue(box, forKey: "box")
            return fresh
        }
        context.performAndWait { context.delete(one) }
        context.performAndWait {
            #expect(one.isDeleted && (box.value(forKey: "items") as? [ManagedObject])?.map(UndoGraph.name) == ["Item#2", "Item#10"])
            undo.undo()
            #expect(!one.isDeleted && !one.hasChanges)
            #expect((box.value(forKey: "items") as? [ManagedObject])?.map(UndoGraph.name) == ["Item#1", "Item#2", "Item#10"])
            #expect((tag.value(forKey: "items") as? Set<ManagedObject>) == [one])
            undo.undo()
            #expect(fresh.isDeleted && !context.insertedObjects.contains(fresh))
            #expect((box.value(forKey: "items") as? [ManagedObject])?.map(UndoGraph.name) == ["Item#1", "Item#2"])
            undo.redo()
            #expect(fresh.isInserted && fresh.value(forKey: "box") as? ManagedObject === box)
        }
    }

    @Test("undo after a save gives changes a save writes: an undone insert deletes the row, an undone delete inserts it again", arguments: TestStack.Kind.allCases)
    func undoAfterSave(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let (box, two) = try context.performAndWait { (try object("Box", 1, in: context), try object("Item", 2, in: context)) }
        try context.performAndWait {
            let fresh = try UndoGraph.insert("Item", key: 20, into: context)
            fresh.setValue("new", forKey: "title")
            fresh.setValue(box, forKey: "box")
            two.setValue("renamed", forKey: "title")
        }
        try context.performAndWait { try context.save() }
        context.performAndWait { context.delete(box) }  // cascades to its items
        try context.performAndWait { try context.save() }
        func stored() throws -> [String: [String: String]] {
            let reader = stack.newContext()
            return try reader.performAndWait { try UndoGraph.storedState(in: reader).objects }
        }
        #expect(try stored().keys.sorted() == ["Tag#3"])
        try context.performAndWait {
            undo.undo()  // the delete: box and items come back as inserts
            #expect(box.isInserted && two.isInserted)
            try context.save()
        }
        var rows = try stored()
        #expect(rows["Box#1"]?["items"] == "Item#1,Item#2,Item#20")
        #expect(rows["Item#2"]?["title"] == "renamed")
        #expect(rows["Item#1"]?["tags"] == "Tag#3")
        try context.performAndWait {
            undo.undo()  // the insert and the rename
            #expect(context.deletedObjects.map(UndoGraph.name) == ["Item#20"])
            #expect(two.isUpdated)
            try context.save()
        }
        rows = try stored()
        #expect(rows["Item#20"] == nil)
        #expect(rows["Item#2"]?["title"] == "two")
        #expect(rows["Box#1"]?["items"] == "Item#1,Item#2")
        try context.performAndWait {
            undo.redo()
            undo.redo()
            try context.save()
        }
        #expect(try stored().keys.sorted() == ["Tag#3"])
    }

    @Test("to-one, to-many and ordered edits undo on both sides of the relationship", arguments: TestStack.Kind.allCases)
    func inverseSides(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        try context.performAndWait {
            let box = try object("Box", 1, in: context)
            let one = try object("Item", 1, in: context)
            let two = try object("Item", 2, in: context)
            let tag = try object("Tag", 3, in: context)
            let other = try UndoGraph.insert("Box", key: 2, into: context)
            context.processPendingChanges()
            one.setValue(other, forKey: "box")
            context.processPendingChanges()
            two.mutableSetValue(forKey: "tags").add(tag)
            context.processPendingChanges()
            box.mutableOrderedSetValue(forKey: "items").insert(one, at: 0)
            context.processPendingChanges()
            #expect((box.value(forKey: "items") as? [ManagedObject]) == [one, two])
            #expect((other.value(forKey: "items") as? [ManagedObject]) == [])
            undo.undo()
            #expect((box.value(forKey: "items") as? [ManagedObject]) == [two])
            #expect((other.value(forKey: "items") as? [ManagedObject]) == [one])
            #expect(one.value(forKey: "box") as? ManagedObject === other)
            undo.undo()
            #expect((tag.value(forKey: "items") as? Set<ManagedObject>) == [one])
            #expect((two.value(forKey: "tags") as? Set<ManagedObject>) == [])
            undo.undo()
            #expect(one.value(forKey: "box") as? ManagedObject === box)
            #expect((box.value(forKey: "items") as? [ManagedObject]) == [one, two])
        }
    }

    @Test("transient attributes and transient relationships are undone and redone", arguments: TestStack.Kind.allCases)
    func transients(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let (one, tag) = try context.performAndWait { (try object("Item", 1, in: context), try object("Tag", 3, in: context)) }
        context.performAndWait {
            one.setValue("a note", forKey: "note")
            one.setValue(tag, forKey: "focus")
        }
        context.performAndWait {
            #expect((tag.value(forKey: "watchers") as? Set<ManagedObject>) == [one])
            undo.undo()
            #expect(one.value(forKey: "note") == nil)
            #expect(one.value(forKey: "focus") == nil)
            #expect((tag.value(forKey: "watchers") as? Set<ManagedObject>) == [])
            undo.redo()
            #expect(one.value(forKey: "note") as? String == "a note")
            #expect((tag.value(forKey: "watchers") as? Set<ManagedObject>) == [one])
        }
    }

    @Test("a merge of another context's save is not recorded", arguments: TestStack.Kind.allCases)
    func mergesAreNotRecorded(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait { item.setValue(Int64(1), forKey: "score") }
        let other = stack.newContext()
        let log = NotificationLog(other, names: [.managedObjectContextDidSave])
        try other.performAndWait {
            try object("Item", 1, in: other).setValue("merged", forKey: "title")
            try object("Tag", 3, in: other).setValue("merged", forKey: "label")
            try other.save()
        }
        let info = try #require(log.lastUserInfo[.managedObjectContextDidSave])
        context.performAndWait {
            context.mergeChanges(fromContextDidSave: Notification(name: .managedObjectContextDidSave, object: other, userInfo: info))
            #expect(item.value(forKey: "title") as? String == "merged")
            #expect(undo.undoStack.count == 1)
            undo.undo()
            #expect(item.value(forKey: "score") as? Int64 == 0)
            #expect(item.value(forKey: "title") as? String == "merged")
        }
    }

    @Test("undoing an edit does not bring back an object a merged delete removed", arguments: TestStack.Kind.allCases)
    func mergedDeleteStaysDeleted(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (context, undo) = undoContext(stack)
        let two = try context.performAndWait { try object("Item", 2, in: context) }
        context.performAndWait { two.setValue("edited", forKey: "title") }
        let other = stack.newContext()
        let log = NotificationLog(other, names: [.managedObjectContextDidSave])
        try other.performAndWait {
            other.delete(try object("Item", 2, in: other))
            try other.save()
        }
        let info = try #require(log.lastUserInfo[.managedObjectContextDidSave])
        try context.performAndWait {
            context.mergeChanges(fromContextDidSave: Notification(name: .managedObjectContextDidSave, object: other, userInfo: info))
            #expect(two.isDeleted)
            undo.undo()
            #expect(two.isDeleted && !context.hasChanges)
            try context.save()
        }
        let reader = stack.newContext()
        let keys = try reader.performAndWait { try UndoGraph.storedState(in: reader).objects.keys.sorted() }
        #expect(keys == ["Box#1", "Item#1", "Tag#3"])
    }

    @Test("setting the undo manager to nil keeps the current block's changes undoable and stops recording")
    func detaching() throws {
        let stack = try seeded(.inMemory)
        let (context, undo) = undoContext(stack)
        let item = try context.performAndWait { try object("Item", 1, in: context) }
        context.performAndWait {
            item.setValue("kept", forKey: "title")
            context.undoManager = nil
            item.setValue(Int64(9), forKey: "score")
            #expect(undo.undoStack.count == 1)
            context.undoManager = undo
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "one")
            #expect(item.value(forKey: "score") as? Int64 == 9)
        }
    }

    @Test("a child context's save is one undoable group in the parent", arguments: TestStack.Kind.allCases)
    func childSave(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let (parent, undo) = undoContext(stack)
        let item = try parent.performAndWait { try object("Item", 1, in: parent) }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            try object("Item", 1, in: child).setValue("from child", forKey: "title")
            _ = try UndoGraph.insert("Tag", key: 30, into: child)
            try child.save()
        }
        try parent.performAndWait {
            #expect(item.value(forKey: "title") as? String == "from child")
            #expect(undo.undoStack.count == 1)
            undo.undo()
            #expect(item.value(forKey: "title") as? String == "one")
            #expect(parent.insertedObjects.isEmpty)
            try parent.save()
        }
        let reader = stack.newContext()
        let title = try reader.performAndWait { try object("Item", 1, in: reader).value(forKey: "title") as? String }
        #expect(title == "one")
    }

    @Test("in a child context, undo after a save into the parent gives changes the next save pushes up", arguments: TestStack.Kind.allCases)
    func childContextUndoAfterSave(kind: TestStack.Kind) throws {
        let stack = try seeded(kind)
        let parent = stack.newContext(name: "parent")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let undo = ObjectUndoManager()
        try child.performAndWait {
            child.undoManager = undo
            let box = try object("Box", 1, in: child)
            let fresh = try UndoGraph.insert("Item", key: 40, into: child)
            fresh.setValue(box, forKey: "box")
            box.setValue("renamed", forKey: "name")
        }
        try child.performAndWait {
            try child.save()
            undo.undo()
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        let first = stack.newContext()
        var rows = try first.performAndWait { try UndoGraph.storedState(in: first).objects }
        #expect(rows["Item#40"] == nil)
        #expect(rows["Box#1"]?["name"] == "B1" && rows["Box#1"]?["items"] == "Item#1,Item#2")
        try child.performAndWait {
            undo.redo()
            try child.save()
        }
        try parent.performAndWait { try parent.save() }
        let reader = stack.newContext()
        rows = try reader.performAndWait { try UndoGraph.storedState(in: reader).objects }
        #expect(rows["Box#1"]?["name"] == "renamed" && rows["Box#1"]?["items"] == "Item#1,Item#2,Item#40")
    }

    @Test("the undo manager's calls are checked by the concurrency debug mode")
    func concurrencyDebug() async {
        await #expect(processExitsWith: .failure) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: UndoGraph.model())
            _ = try? coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            let undo = ObjectUndoManager()
            context.performAndWait { context.undoManager = undo }
            undo.undo()  // off the context's queue: must trap
        }
    }
}

/// A value behind a lock, for notification observers.
final class UndoTestLocked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
