import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Concurrent contexts")
struct ConcurrentSaveTests {
    @Test("8 background contexts insert 5,000 objects each and save at once while the view context fetches")
    func eightWriters() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let entity = try #require(stack.model.entitiesByName["Person"])
        let view = ManagedObjectContext(concurrencyType: .mainQueue)
        view.persistentStoreCoordinator = stack.coordinator
        view.name = "view"
        let writersDone = AtomicCounter()
        let fetchRounds = AtomicCounter()
        let observed = AtomicCounter()
        let outcome = ThreadRunner.run(count: 9, timeout: 120) { index in
            if index == 8 {
                // The view context's reader: fetch in a loop until every writer is done.
                let request = FetchRequest<ManagedObject>(entityName: "Person")
                request.predicate = ObjectPredicate(format: "age >= %@", 0)
                repeat {
                    let count = try view.performAndWait { try view.count(for: request) }
                    #expect(count % 5_000 == 0)  // saves are atomic: whole batches or nothing
                    if count > observed.current { observed.add(count - observed.current) }
                    fetchRounds.add()
                } while writersDone.current < 8
                return
            }
            let context = stack.newContext(name: "writer \(index)")
            try context.performAndWait {
                for number in 0..<5_000 {
                    let person = ManagedObject(entity: entity, insertInto: context)
                    person.setValue("w\(index)-\(number)", forKey: "name")
                    person.setValue(number, forKey: "age")
                }
                try context.save()
            }
            writersDone.add()
        }
        #expect(outcome.finished, "watchdog: the threads did not finish in time")
        #expect(outcome.errors.isEmpty, "\(outcome.errors)")
        let total = try view.performAndWait { try view.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
        #expect(total == 40_000)
        #expect(fetchRounds.current > 0)
    }

    @Test("performAndWait is re-entrant, also through a chain of waits")
    func reentrancy() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let a = stack.newContext(name: "a")
        let b = stack.newContext(name: "b")
        let outcome = ThreadRunner.run(count: 1, timeout: 10) { _ in
            let value = a.performAndWait {
                b.performAndWait {
                    a.performAndWait { 42 }
                }
            }
            #expect(value == 42)
        }
        #expect(outcome.finished, "deadlock")
    }

    @Test("async perform returns results and errors")
    func asyncPerform() async throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        let count = try await context.perform {
            let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
            let person = ManagedObject(entity: entity, insertInto: context)
            person.setValue("async", forKey: "name")
            try context.save()
            return try context.count(for: FetchRequest<ManagedObject>(entityName: "Person"))
        }
        #expect(count == 1)
        await #expect(throws: StrataError.self) {
            try await context.perform { try context.fetch(FetchRequest<ManagedObject>(entityName: "Missing")).count }
        }
    }
}
