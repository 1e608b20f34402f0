import Foundation
import Strata
import StrataTestSupport
import Testing

// The code samples of docs/concurrency.md, compiled and run: keep the two in step.
// (Types are nested in `ConcurrencyGuide` so that they do not clash with other test types.)

enum ConcurrencyGuide {
    // MARK: The model of the guide

    final class Person: ManagedObject {
        @Attribute("name") var name: String
        @Attribute("age") var age: Int64
    }

    final class Account: ManagedObject {
        @Attribute("number") var number: Int64
        @Attribute("balance") var balance: Int64
    }

    static func makeModel() -> ManagedObjectModel {
        let person = EntityDescription(name: "Person", managedObjectClass: Person.self)
        person.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "age", type: .integer64, isOptional: false, defaultValue: Int64(0)),
        ]
        let account = EntityDescription(name: "Account", managedObjectClass: Account.self)
        account.properties = [
            AttributeDescription(name: "number", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "balance", type: .integer64, isOptional: false, defaultValue: Int64(0)),
        ]
        return ManagedObjectModel(entities: [person, account])
    }

    static func makeContainer(storeURL: URL) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Guide", managedObjectModel: makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try container.loadPersistentStores()
        return container
    }

    // MARK: Background import

    static func importPeople(_ records: [(name: String, age: Int64)], into container: PersistentContainer) async throws {
        let context = container.newBackgroundContext()
        context.name = "import"
        try await context.perform {
            for (index, record) in records.enumerated() {
                let person = Person(context: context)
                person.name = record.name
                person.age = record.age
                if index % 1_000 == 999 {
                    try context.save()  // one transaction per batch
                    context.reset()  // forget the saved objects: memory stays flat
                }
            }
            try context.save()
        }
    }

    // MARK: A child editor

    /// Edits one person in a scratch child context of the view context.
    final class PersonEditor: Sendable {
        let view: ManagedObjectContext
        let editor: ManagedObjectContext
        let personID: ManagedObjectID

        init(view: ManagedObjectContext, personID: ManagedObjectID) {
            self.view = view
            self.personID = personID
            editor = ManagedObjectContext(concurrencyType: .privateQueue)
            editor.parent = view
            editor.name = "editor"
        }

        func rename(to name: String) {
            editor.performAndWait {
                guard let person = editor.object(with: personID) as? Person else { return }
                person.name = name
            }
        }

        /// Pushes the edit into the view context, then writes the view context to the store.
        func save() throws {
            try editor.performAndWait { try editor.save() }  // the child waits for its parent
            try view.performAndWait { try view.save() }  // a separate wait, from the caller
        }

        /// Forgets the edit; the view context never saw it.
        func discard() {
            editor.performAndWait { editor.rollback() }
        }
    }

    // MARK: Merging into the view context

    /// Follows the saves of `background` with `mergeChanges(fromContextDidSave:)`.
    static func followSaves(of background: ManagedObjectContext, in view: ManagedObjectContext) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: background, queue: nil) { notification in
            // Posted on the background context's queue. Its objects stay there; only the IDs
            // (Sendable sets) cross to the view context's queue.
            let info = notification.userInfo ?? [:]
            let inserted = info[ManagedObjectContext.NotificationKey.insertedObjectIDs] as? Set<ManagedObjectID> ?? []
            let updated = info[ManagedObjectContext.NotificationKey.updatedObjectIDs] as? Set<ManagedObjectID> ?? []
            let deleted = info[ManagedObjectContext.NotificationKey.deletedObjectIDs] as? Set<ManagedObjectID> ?? []
            view.perform {
                let ids = Notification(
                    name: .managedObjectContextDidSave, object: nil,
                    userInfo: [
                        ManagedObjectContext.NotificationKey.insertedObjectIDs: inserted,
                        ManagedObjectContext.NotificationKey.updatedObjectIDs: updated,
                        ManagedObjectContext.NotificationKey.deletedObjectIDs: deleted,
                    ])
                view.mergeChanges(fromContextDidSave: ids)
            }
        }
    }

    /// The same with the context's AsyncSequence of did-save payloads (IDs only).
    static func followSavesAsync(of background: ManagedObjectContext, in view: ManagedObjectContext) -> Task<Void, Never> {
        let saves = background.notifications(named: .managedObjectContextDidSave)
        return Task {
            for await changes in saves {
                ManagedObjectContext.mergeChanges(
                    fromRemoteContextSave: [
                        ManagedObjectContext.NotificationKey.insertedObjectIDs: changes.inserted,
                        ManagedObjectContext.NotificationKey.updatedObjectIDs: changes.updated,
                        ManagedObjectContext.NotificationKey.deletedObjectIDs: changes.deleted,
                    ], into: [view])
            }
        }
    }

    // MARK: Conflicts

    /// Moves money with optimistic locking. Each attempt is one block — read, change, save —
    /// so nothing can change the accounts between the read and the save unnoticed; a conflict
    /// (133020) rolls the attempt back, refreshes what changed, and the transfer is done again.
    static func transfer(_ amount: Int64, from source: ManagedObjectID, to target: ManagedObjectID, in context: ManagedObjectContext) throws {
        for attempt in 1...20 {
            let saved = try context.performAndWait { () throws -> Bool in
                guard let from = try context.existingObject(with: source) as? Account,
                    let to = try context.existingObject(with: target) as? Account
                else { return true }
                from.balance -= amount
                to.balance += amount
                do {
                    try context.save()
                    return true
                } catch let error as StrataError where error.code == StrataError.Code.managedObjectMerge {
                    context.rollback()
                    for conflict in error.conflicts {
                        if let object = context.registeredObject(for: conflict.objectID) {
                            context.refresh(object, mergeChanges: false)
                        }
                    }
                    return false
                }
            }
            if saved { return }
            // Back off a little (outside the block) so that the winner can finish.
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.001) * Double(attempt))
        }
        throw StrataError(code: StrataError.Code.managedObjectMerge, message: "The transfer kept conflicting; gave up after 20 attempts")
    }

    // MARK: Query generations

    /// Two counts that agree although another context saves between them.
    static func consistentCounts(reader: ManagedObjectContext, meanwhile: () throws -> Void) throws -> (Int, Int, Int) {
        let people = FetchRequest<Person>(entityName: "Person")
        return try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)  // pin: a read transaction is held
            let first = try reader.count(for: people)
            try meanwhile()  // (in the guide: other contexts save here)
            let second = try reader.count(for: people)  // same state as `first`
            try reader.setQueryGenerationFrom(.current)  // move forward
            reader.refreshAllObjects()  // registered objects re-read in the new state
            let third = try reader.count(for: people)
            try reader.setQueryGenerationFrom(nil)  // unpin
            return (first, second, third)
        }
    }

    // MARK: Main-queue contexts in a command-line program (compiled, never called here)

    static func serverMain() -> Never {
        let container = PersistentContainer(name: "Server", managedObjectModel: makeModel())
        do {
            try container.loadPersistentStores()
        } catch {
            print("cannot open the store: \(error)")
            exit(1)
        }
        let worker = Thread {
            let count = try? container.viewContext.performAndWait {
                try container.viewContext.count(for: FetchRequest<Person>(entityName: "Person"))
            }
            print("people: \(count ?? 0)")
            exit(0)
        }
        worker.start()
        RunLoop.main.run()  // services the main queue: the view context's blocks run now
        exit(0)
    }
}

@Suite("The concurrency guide's examples (docs/concurrency.md)")
struct ConcurrencyGuideTests {
    typealias Guide = ConcurrencyGuide

    @Test("background import in batches")
    func backgroundImport() async throws {
        let directory = TemporaryDirectory()
        let container = try Guide.makeContainer(storeURL: directory.file("Guide.sqlite"))
        try await Guide.importPeople((0..<2_500).map { (name: "p\($0)", age: Int64($0 % 90)) }, into: container)
        let background = container.newBackgroundContext()
        let count = try await background.perform { try background.count(for: FetchRequest<Guide.Person>(entityName: "Person")) }
        #expect(count == 2_500)
    }

    @Test("a child editor saves into the view context, or discards")
    func childEditor() throws {
        let directory = TemporaryDirectory()
        let container = try Guide.makeContainer(storeURL: directory.file("Guide.sqlite"))
        let view = container.viewContext
        let id: ManagedObjectID = try view.performAndWait {
            let ann = Guide.Person(context: view)
            ann.name = "Ann"
            try view.save()
            return ann.objectID
        }
        let editor = Guide.PersonEditor(view: view, personID: id)
        editor.rename(to: "Draft")
        editor.discard()
        view.performAndWait { #expect((view.object(with: id) as? Guide.Person)?.name == "Ann") }
        editor.rename(to: "Anna")
        try editor.save()
        let reader = container.newBackgroundContext()
        reader.performAndWait { #expect((reader.object(with: id) as? Guide.Person)?.name == "Anna") }
    }

    @Test("the view context follows background saves: automatically, by notification, by AsyncSequence")
    func viewMerges() async throws {
        let directory = TemporaryDirectory()
        let container = try Guide.makeContainer(storeURL: directory.file("Guide.sqlite"))
        let view = container.viewContext
        view.retainsRegisteredObjects = true  // keeps the objects it shows, so merges matter
        let background = container.newBackgroundContext()
        let id: ManagedObjectID = try await background.perform {
            let bo = Guide.Person(context: background)
            bo.name = "Bo"
            try background.save()
            return bo.objectID
        }
        func rename(_ name: String) async throws {
            try await background.perform {
                (background.object(with: id) as? Guide.Person)?.name = name
                try background.save()
            }
        }
        func shown() async -> String? { await view.perform { (view.object(with: id) as? Guide.Person)?.name } }
        #expect(await shown() == "Bo")

        // 1. automaticallyMergesChangesFromParent
        view.automaticallyMergesChangesFromParent = true
        try await rename("Bob")
        #expect(await shown() == "Bob")  // the merge was enqueued before this block
        view.automaticallyMergesChangesFromParent = false

        // 2. mergeChanges(fromContextDidSave:)
        let observer = Guide.followSaves(of: background, in: view)
        try await rename("Bobby")
        #expect(await shown() == "Bobby")
        NotificationCenter.default.removeObserver(observer)

        // 3. the AsyncSequence of did-save payloads
        let follower = Guide.followSavesAsync(of: background, in: view)
        try await Task.sleep(nanoseconds: 10_000_000)  // let the task subscribe
        try await rename("Robert")
        var name: String?
        for _ in 0..<200 {
            name = await shown()
            if name == "Robert" { break }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        follower.cancel()
        #expect(name == "Robert")
    }

    @Test("conflicts: concurrent transfers with refresh-and-retry lose no money")
    func transfersWithRetry() throws {
        let directory = TemporaryDirectory()
        let container = try Guide.makeContainer(storeURL: directory.file("Guide.sqlite"))
        let setup = container.newBackgroundContext()
        let ids: [ManagedObjectID] = try setup.performAndWait {
            let accounts = (0..<2).map { number -> Guide.Account in
                let account = Guide.Account(context: setup)
                account.number = Int64(number)
                account.balance = 1_000
                return account
            }
            try setup.save()
            return accounts.map(\.objectID)
        }
        let outcome = ThreadRunner.run(count: 4, timeout: 60) { index in
            let context = container.newBackgroundContext()
            context.retainsRegisteredObjects = true  // stale objects: conflicts for sure
            context.stalenessInterval = 0  // re-read rows from the store, not the shared cache
            for step in 0..<25 {
                let forward = (index + step) % 2 == 0
                try Guide.transfer(7, from: ids[forward ? 0 : 1], to: ids[forward ? 1 : 0], in: context)
            }
        }
        #expect(outcome.finished && outcome.errors.isEmpty, "\(outcome.errors)")
        let check = container.newBackgroundContext()
        let total = check.performAndWait { ids.compactMap { (check.object(with: $0) as? Guide.Account)?.balance }.reduce(0, +) }
        #expect(total == 2_000)
    }

    @Test("a query generation keeps reads consistent while others save")
    func queryGeneration() throws {
        let directory = TemporaryDirectory()
        let container = try Guide.makeContainer(storeURL: directory.file("Guide.sqlite"))
        let writer = container.newBackgroundContext()
        func insert() throws {
            try writer.performAndWait {
                _ = Guide.Person(context: writer)
                try writer.save()
            }
        }
        try insert()
        let counts = try Guide.consistentCounts(reader: container.newBackgroundContext()) { try insert() }
        #expect(counts == (1, 1, 2))
    }

    @Test("debug mode: an object used off its queue traps")
    func debugMode() async {
        // The folder belongs to this process: the child traps without running deinitializers.
        let directory = TemporaryDirectory()
        await #expect(processExitsWith: .failure) { [store = directory.file("Guide.sqlite") as URL] in
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            guard let container = try? Guide.makeContainer(storeURL: store) else { return }
            let context = container.newBackgroundContext()
            let request = FetchRequest<Guide.Person>(entityName: "Person")
            context.performAndWait {
                _ = Guide.Person(context: context)
                try? context.save()
            }
            let person = try? context.performAndWait { try context.fetch(request).first }  // the object escapes its queue…
            person?.name = "Zoë"  // …and is used off it: traps in debug mode
        }
        withExtendedLifetime(directory) {}  // the folder outlives the child
    }
}
