import Foundation
import Strata
import StrataTestSupport
import Synchronization
import Testing

/// Collects notifications posted for one context.
final class NotificationLog: @unchecked Sendable {
    // @unchecked Sendable: all state behind `lock`.
    private let lock = NSLock()
    private var names: [Notification.Name] = []
    private var tokens: [NSObjectProtocol] = []
    private(set) var lastUserInfo: [Notification.Name: [AnyHashable: Any]] = [:]

    init(_ context: ManagedObjectContext, names watched: [Notification.Name]) {
        for name in watched {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self] note in
                    guard let self else { return }
                    self.lock.lock()
                    self.names.append(note.name)
                    self.lastUserInfo[note.name] = note.userInfo ?? [:]
                    self.lock.unlock()
                })
        }
    }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }

    var posted: [Notification.Name] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }
}

@Suite("Notifications and merging")
struct NotificationAndMergeTests {
    let names: [Notification.Name] = [.managedObjectContextObjectsDidChange, .managedObjectContextWillSave, .managedObjectContextDidSave, .managedObjectContextDidSaveObjectIDs]

    @Test("objects-did-change at the end of each perform, will-save and did-save around saves")
    func notificationOrder() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        let log = NotificationLog(context, names: names)
        let entity = try #require(stack.model.entitiesByName["Person"])
        context.performAndWait {
            let person = ManagedObject(entity: entity, insertInto: context)
            person.setValue("Ann", forKey: "name")
        }
        #expect(log.posted == [.managedObjectContextObjectsDidChange])
        let inserted = log.lastUserInfo[.managedObjectContextObjectsDidChange]?[ManagedObjectContext.NotificationKey.insertedObjects] as? Set<ManagedObject>
        #expect(inserted?.count == 1)
        try context.performAndWait { try context.save() }
        #expect(log.posted == [.managedObjectContextObjectsDidChange, .managedObjectContextWillSave, .managedObjectContextDidSave, .managedObjectContextDidSaveObjectIDs])
        let savedIDs = log.lastUserInfo[.managedObjectContextDidSave]?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>
        #expect(savedIDs?.count == 1)
        #expect(savedIDs?.first?.isTemporaryID == false)
    }

    @Test("notifications also arrive as an AsyncSequence of IDs")
    func asyncSequence() async throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        let saves = context.notifications(named: .managedObjectContextDidSave)
        let entity = try #require(stack.model.entitiesByName["Person"])
        try await context.perform {
            let person = ManagedObject(entity: entity, insertInto: context)
            person.setValue("Bo", forKey: "name")
            try context.save()
        }
        var iterator = saves.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted.count == 1)
    }

    @Test("mergeChanges(fromContextDidSave:) refreshes, removes and keeps unsaved edits")
    func manualMerge() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let entity = try #require(stack.model.entitiesByName["Person"])
        let writer = stack.newContext(name: "writer")
        let (a, b, c): (ManagedObjectID, ManagedObjectID, ManagedObjectID) = try writer.performAndWait {
            let people = (0..<3).map { index -> ManagedObject in
                let person = ManagedObject(entity: entity, insertInto: writer)
                person.setValue("p\(index)", forKey: "name")
                person.setValue(index, forKey: "age")
                return person
            }
            try writer.save()
            return (people[0].objectID, people[1].objectID, people[2].objectID)
        }
        let reader = stack.newContext(name: "reader")
        let readerObjects: [ManagedObject] = reader.performAndWait {
            let objects = [a, b, c].map { reader.object(with: $0) }
            for object in objects { _ = object.value(forKey: "age") }
            objects[2].setValue(99, forKey: "age")  // an unsaved edit in the reader
            return objects
        }
        let log = NotificationLog(writer, names: [.managedObjectContextDidSave])
        try writer.performAndWait {
            writer.object(with: a).setValue(50, forKey: "age")
            writer.delete(writer.object(with: b))
            writer.object(with: c).setValue("renamed", forKey: "name")
            try writer.save()
        }
        let info = try #require(log.lastUserInfo[.managedObjectContextDidSave])
        let notification = Notification(name: .managedObjectContextDidSave, object: writer, userInfo: info)
        reader.performAndWait {
            reader.mergeChanges(fromContextDidSave: notification)
            #expect(readerObjects[0].value(forKey: "age") as? Int64 == 50)
            // Core Data keeps a merged deletion registered, realised and deleted (see
            // Tests/StrataTests/Context/MergeBehaviourTests.swift for the whole behaviour).
            #expect(readerObjects[1].managedObjectContext === reader)
            #expect(readerObjects[1].isDeleted)
            #expect(readerObjects[1].value(forKey: "name") as? String == "p1")
            #expect(readerObjects[2].value(forKey: "name") as? String == "renamed")
            #expect(readerObjects[2].value(forKey: "age") as? Int64 == 99)
            #expect(readerObjects[2].isUpdated)
        }
        try reader.performAndWait { try reader.save() }
        let check = stack.newContext()
        check.performAndWait {
            let object = check.object(with: c)
            #expect(object.value(forKey: "name") as? String == "renamed")
            #expect(object.value(forKey: "age") as? Int64 == 99)
        }
    }

    @Test("automaticallyMergesChangesFromParent: a root context follows other contexts' saves")
    func automaticMerge() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let entity = try #require(stack.model.entitiesByName["Person"])
        let view = stack.newContext(name: "view")
        view.automaticallyMergesChangesFromParent = true
        view.retainsRegisteredObjects = true
        let writer = stack.newContext(name: "writer")
        let id: ManagedObjectID = try writer.performAndWait {
            let person = ManagedObject(entity: entity, insertInto: writer)
            person.setValue("v1", forKey: "name")
            try writer.save()
            return person.objectID
        }
        let object = view.performAndWait { () -> ManagedObject in
            let object = view.object(with: id)
            _ = object.value(forKey: "name")
            return object
        }
        let merged = DispatchSemaphore(value: 0)
        let token = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: view, queue: nil) { _ in merged.signal() }
        try writer.performAndWait {
            writer.object(with: id).setValue("v2", forKey: "name")
            try writer.save()
        }
        #expect(merged.wait(timeout: .now() + 10) == .success)
        NotificationCenter.default.removeObserver(token)
        view.performAndWait {
            #expect(object.value(forKey: "name") as? String == "v2")
        }
    }

    @Test("many background contexts merge into one view context")
    func manyWritersOneView() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let entity = try #require(stack.model.entitiesByName["Person"])
        let view = stack.newContext(name: "view")
        view.automaticallyMergesChangesFromParent = true
        let merges = AtomicCounter()
        let token = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: view, queue: nil) { note in
            if let inserted = note.userInfo?[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID> { merges.add(inserted.count) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let outcome = ThreadRunner.run(count: 6, timeout: 60) { index in
            let context = stack.newContext(name: "writer \(index)")
            for batch in 0..<5 {
                try context.performAndWait {
                    for number in 0..<20 {
                        let person = ManagedObject(entity: entity, insertInto: context)
                        person.setValue("w\(index)-\(batch)-\(number)", forKey: "name")
                    }
                    try context.save()
                }
            }
        }
        #expect(outcome.finished)
        #expect(outcome.errors.isEmpty)
        // Let the view's queue drain its merges.
        let deadline = Date().addingTimeInterval(10)
        while merges.current < 600 && Date() < deadline {
            view.performAndWait {}
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(merges.current == 600)
    }
}
