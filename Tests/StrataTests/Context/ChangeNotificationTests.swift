import Foundation
import Strata
import StrataTestSupport
import Testing

/// A live view kept only from a context's objects-did-change notifications, the way a
/// fetched-results controller keeps its rows: inserted objects are added, deleted ones removed,
/// updated and refreshed ones re-read, and an invalidate-all (a reset) refetches.
final class NotificationDrivenView: @unchecked Sendable {
    // @unchecked Sendable: touched only on the observed context's queue (notifications are
    // posted there; the test reads it inside performAndWait).
    private(set) var names: [ObjectIdentifier: String] = [:]
    private var objects: [ObjectIdentifier: ManagedObject] = [:]
    private var token: NSObjectProtocol?
    let context: ManagedObjectContext
    let entityName: String

    init(context: ManagedObjectContext, entityName: String) throws {
        self.context = context
        self.entityName = entityName
        try refetch()
        token = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { [weak self] note in
            self?.apply(note.userInfo ?? [:])
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    /// Called on the context's queue (the test creates the view inside performAndWait).
    private func refetch() throws {
        objects = [:]
        names = [:]
        for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entityName)) { add(object) }
    }

    private func add(_ object: ManagedObject) {
        guard object.entity.name == entityName else { return }
        objects[ObjectIdentifier(object)] = object
        names[ObjectIdentifier(object)] = object.value(forKey: "name") as? String
    }

    private func apply(_ info: [AnyHashable: Any]) {
        typealias Key = ManagedObjectContext.NotificationKey
        if info[Key.invalidatedAllObjects] != nil {
            try? refetch()
            return
        }
        for object in info[Key.deletedObjects] as? Set<ManagedObject> ?? [] {
            objects[ObjectIdentifier(object)] = nil
            names[ObjectIdentifier(object)] = nil
        }
        for object in info[Key.insertedObjects] as? Set<ManagedObject> ?? [] { add(object) }
        let changed = (info[Key.updatedObjects] as? Set<ManagedObject> ?? []).union(info[Key.refreshedObjects] as? Set<ManagedObject> ?? [])
        for object in changed where objects[ObjectIdentifier(object)] != nil { add(object) }
    }

    /// What a fetch (unsaved changes included) shows now, keyed like the view.
    func truth() throws -> [ObjectIdentifier: String] {
        var result: [ObjectIdentifier: String] = [:]
        for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entityName)) {
            result[ObjectIdentifier(object)] = object.value(forKey: "name") as? String
        }
        return result
    }
}

/// Objects-did-change that a live view can trust (issue #13, item 9).
@Suite("Objects-did-change reports every change a view must see")
struct ChangeNotificationTests {
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        item.properties = [AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")]
        return ManagedObjectModel(entities: [item])
    }

    static func insertItem(_ context: ManagedObjectContext, _ name: String, _ model: ManagedObjectModel) -> ManagedObject {
        let entity = model.entitiesByName["Item"]!
        let item = ManagedObject(entity: entity, insertInto: context)
        item.setValue(name, forKey: "name")
        return item
    }

    /// Core Data reports edits of an inserted object made after `processPendingChanges()`
    /// reported its insert under the updated key (NSManagedObjectContextObjectsDidChange: "the
    /// set of objects that were updated"); an edit in the same event as the insert is part of
    /// the insert.
    @Test("an inserted object's later edits are reported as updates", arguments: TestStack.Kind.allCases)
    func insertedObjectEdits(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        let log = NotificationLog(context, names: [.managedObjectContextObjectsDidChange])
        context.performAndWait {
            let item = Self.insertItem(context, "a", stack.model)
            item.setValue("b", forKey: "name")
            context.processPendingChanges()
            var info = log.lastUserInfo[.managedObjectContextObjectsDidChange] ?? [:]
            #expect((info[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>) == [item.objectID])
            #expect((info[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>)?.isEmpty != false)
            item.setValue("c", forKey: "name")
            context.processPendingChanges()
            info = log.lastUserInfo[.managedObjectContextObjectsDidChange] ?? [:]
            #expect((info[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID>) == [item.objectID])
            #expect((info[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID>)?.isEmpty != false)
        }
    }

    /// Core Data's `rollback()` undoes the unsaved changes and its objects-did-change tells
    /// observers what was undone (rollback runs the undo of every change: an undone insert is a
    /// deletion, an undone delete an insertion, undone edits are updates; NSManagedObjectContext
    /// rollback and undo documentation). Changes made and undone inside one event were never
    /// reported, so nothing is reported for them.
    @Test("rollback reports what it undid", arguments: TestStack.Kind.allCases)
    func rollbackReports(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let context = stack.newContext()
        let log = NotificationLog(context, names: [.managedObjectContextObjectsDidChange])
        try context.performAndWait {
            let kept = Self.insertItem(context, "kept", stack.model)
            let doomed = Self.insertItem(context, "doomed", stack.model)
            try context.save()
            let inserted = Self.insertItem(context, "new", stack.model)
            kept.setValue("edited", forKey: "name")
            context.delete(doomed)
            context.processPendingChanges()
            context.rollback()
            context.processPendingChanges()
            let info = log.lastUserInfo[.managedObjectContextObjectsDidChange] ?? [:]
            typealias Key = ManagedObjectContext.NotificationKey
            #expect((info[Key.deletedObjects] as? Set<ManagedObject>) == [inserted])
            #expect((info[Key.insertedObjects] as? Set<ManagedObject>) == [doomed])
            #expect((info[Key.updatedObjects] as? Set<ManagedObject>) == [kept])
            #expect(kept.value(forKey: "name") as? String == "kept")
            // Made and undone in one event: nothing to report.
            let before = log.posted.count
            _ = Self.insertItem(context, "fleeting", stack.model)
            context.rollback()
            context.processPendingChanges()
            #expect(log.posted.count == before)
        }
    }

    /// Core Data's `reset()` posts objects-did-change with `NSInvalidatedAllObjectsKey`.
    @Test("reset posts invalidated-all")
    func resetReports() throws {
        let stack = try TestStack(model: Self.model())
        let context = stack.newContext()
        let log = NotificationLog(context, names: [.managedObjectContextObjectsDidChange])
        let id = try context.performAndWait {
            let item = Self.insertItem(context, "x", stack.model)
            try context.save()
            context.reset()
            return item.objectID
        }
        let info = log.lastUserInfo[.managedObjectContextObjectsDidChange] ?? [:]
        #expect((info[ManagedObjectContext.NotificationKey.invalidatedAllObjects] as? Set<ManagedObjectID>) == [id])
    }

    /// The notification stream, applied by a view that knows nothing else, matches what the
    /// context shows after any sequence of inserts, edits, deletes, saves, rollbacks and resets
    /// (seeded; the seed is in the test's arguments).
    @Test("a view driven only by objects-did-change stays equal to a fetch", arguments: [UInt64(1), 7, 42, 2026])
    func randomEditsKeepViewExact(seed: UInt64) throws {
        let stack = try TestStack(model: Self.model(), kind: .sqlite)
        let context = stack.newContext()
        var random = SeededRandom(seed: seed)
        try context.performAndWait {
            for index in 0..<5 { _ = Self.insertItem(context, "seed\(index)", stack.model) }
            try context.save()
            let view = try NotificationDrivenView(context: context, entityName: "Item")
            var steps = 0
            for step in 0..<400 {
                let live = try context.fetch(FetchRequest<ManagedObject>(entityName: "Item"))
                switch Int.random(in: 0..<100, using: &random) {
                case 0..<25:
                    _ = Self.insertItem(context, "i\(step)", stack.model)
                case 25..<55:
                    if let object = live.randomElement(using: &random) { object.setValue("e\(step)", forKey: "name") }
                case 55..<70:
                    if let object = live.randomElement(using: &random) { context.delete(object) }
                case 70..<80:
                    try context.save()
                case 80..<92:
                    context.rollback()
                case 92..<96:
                    context.reset()
                default:
                    break
                }
                if Int.random(in: 0..<3, using: &random) != 0 {
                    context.processPendingChanges()
                    #expect(view.names == (try view.truth()), "seed \(seed), step \(step)")
                    steps += 1
                }
            }
            context.processPendingChanges()
            #expect(view.names == (try view.truth()), "seed \(seed), end")
            #expect(steps > 100)
        }
    }
}
