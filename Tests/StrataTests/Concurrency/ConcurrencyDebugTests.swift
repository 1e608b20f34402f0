import Foundation
import Strata
import StrataTestSupport
import Testing

/// `STRATA_CONCURRENCY_DEBUG=1` must trap any use of a context or its objects off its queue.
/// Each case runs in a child process (an exit test) so the trap can be observed.
@Suite("Concurrency debug mode")
struct ConcurrencyDebugTests {
    @Test("a context used off its queue traps with a message naming the context and the call")
    func contextOffQueue() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
            _ = try? coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.name = "offender"
            _ = context.hasChanges  // not inside perform: must trap
        }
    }

    @Test("an object used off its context's queue traps")
    func objectOffQueue() async {
        await #expect(processExitsWith: .failure) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
            _ = try? coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            let object = context.performAndWait { () -> ManagedObject? in
                guard let entity = coordinator.managedObjectModel.entitiesByName["Person"] else { return nil }
                return ManagedObject(entity: entity, insertInto: context)
            }
            object?.setValue("leaked", forKey: "name")  // off the queue: must trap
        }
    }

    @Test("correct use does not trap in debug mode")
    func correctUse() async {
        await #expect(processExitsWith: .success) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
            _ = try? coordinator.addPersistentStore(type: .inMemory)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.performAndWait {
                guard let entity = coordinator.managedObjectModel.entitiesByName["Person"] else { return }
                let object = ManagedObject(entity: entity, insertInto: context)
                object.setValue("fine", forKey: "name")
                try? context.save()
            }
            exit(0)
        }
    }

    @Test("STRATA_SQL_DEBUG prints statements and their time on standard error")
    func sqlDebug() async throws {
        // The folder belongs to this process: the child exits without running deinitializers.
        let directory = TemporaryDirectory()
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) { [store = directory.file("debug.sqlite") as URL] in
            setenv("STRATA_SQL_DEBUG", "2", 1)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
            _ = try? coordinator.addPersistentStore(type: .sqlite, at: store)
            let context = ManagedObjectContext(concurrencyType: .privateQueue)
            context.persistentStoreCoordinator = coordinator
            context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Person")
                request.predicate = ObjectPredicate(format: "name == %@", "Zoë")
                _ = try? context.fetch(request)
            }
            exit(0)
        }
        withExtendedLifetime(directory) {}  // the folder outlives the child
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("Strata: sql: SELECT"))
        #expect(output.contains("'Zoë'"))  // level 2 shows bound values
        #expect(output.contains(" ms"))
    }
}
