import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// How a fault fires and how a change is recorded without a call into the context: a fault
/// that holds the row its fetch left it fires from that row when the context's
/// `stalenessInterval` accepts the row's age (Core Data: a fault fetched with its values fires
/// without a round trip to the store), and a setter records the object's change in the
/// context's unit of work and event through the object's registry.
@Suite("Fault firing and change recording")
struct FaultFiringTests {
    @Test("a fault fires from the row its fetch left it, without SQL, calling awakeFromFetch once")
    func firesFromFetchedRow() throws {
        let stack = try TestStack(model: HookedSample.model())
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            for name in ["a", "b"] { HookedSample(context: context).setValue(name, forKey: "name") }
            try context.save()
            context.reset()
            let request = FetchRequest<HookedSample>(entityName: "Hooked")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let objects = try context.fetch(request)
            #expect(objects.allSatisfy { $0.isFault })
            let statements = recorder.statements {
                #expect(objects.map { $0.value(forKey: "name") as? String } == ["a", "b"])
            }
            #expect(SQLRecorder.selects(statements).isEmpty)
            #expect(objects.allSatisfy { !$0.isFault && $0.events == ["awakeFromFetch"] })
        }
    }

    @Test("with stalenessInterval 0 a fault never fires from its fetched row: it reads the store")
    func zeroStalenessReadsStore() throws {
        let stack = try TestStack.people(2)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            context.stalenessInterval = 0
            let statements = recorder.statements { _ = people[0].value(forKey: "name") }
            #expect(SQLRecorder.selects(statements).count == 1)
            #expect(!people[0].isFault)
            #expect(people[1].isFault)
        }
    }

    @Test("stalenessInterval set on one thread is what the context's queue and other threads see")
    func stalenessAcrossThreads() throws {
        let stack = try TestStack.people(1)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        DispatchQueue.global().sync { context.stalenessInterval = 0 }
        #expect(context.stalenessInterval == 0)
        try context.performAndWait {
            #expect(context.stalenessInterval == 0)
            let person = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first)
            let statements = recorder.statements { _ = person.value(forKey: "name") }
            #expect(SQLRecorder.selects(statements).count == 1)
        }
        DispatchQueue.global().sync { context.stalenessInterval = 12.5 }
        #expect(context.stalenessInterval == 12.5)
    }

    @Test("an object whose context is gone stays a fault, and editing it records nothing and does not crash")
    func contextGone() throws {
        let stack = try TestStack.people(1)
        var context: ManagedObjectContext? = stack.newContext()
        weak let weakContext = context
        let person = try Self.firstPerson(in: try #require(context))
        context = nil
        #expect(weakContext == nil)
        #expect(person.managedObjectContext == nil)
        #expect(person.isFault)
        #expect(person.value(forKey: "name") == nil)
        #expect(person.isFault)
        person.setValue("renamed", forKey: "name")
        #expect(!person.isUpdated)
    }

    /// The first `Person` of `context`, fetched as a fault with its row.
    static func firstPerson(in context: ManagedObjectContext) throws -> ManagedObject {
        try context.performAndWait { try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first) }
    }

    @Test("a setter records the change in the context: updated once, reported in one objects-did-change")
    func setterRecordsChange() throws {
        let stack = try TestStack.people(1)
        let context = stack.newContext()
        let names = NotificationNames()
        let observer = NotificationCenter.default.addObserver(forName: .managedObjectContextObjectsDidChange, object: context, queue: nil) { note in
            let updated = note.userInfo?[ManagedObjectContext.NotificationKey.updatedObjects] as? Set<ManagedObject> ?? []
            names.append(updated.compactMap { $0.value(forKey: "name") as? String })
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try context.performAndWait {
            let person = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).first)
            person.setValue("x", forKey: "name")
            person.setValue("y", forKey: "name")
            #expect(person.isUpdated)
            #expect(context.updatedObjects.count == 1)
            context.processPendingChanges()
        }
        #expect(names.all == [["y"]])
    }
}

/// Names reported by notifications, collected from the posting thread.
private final class NotificationNames: @unchecked Sendable {
    // @unchecked Sendable: every access takes the lock.
    private let lock = NSLock()
    private var lists: [[String]] = []
    func append(_ names: [String]) { lock.withLock { lists.append(names) } }
    var all: [[String]] { lock.withLock { lists } }
}
