import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import Strata

/// Asynchronous fetches (issue #15, item 5): `AsynchronousFetchRequest` through `execute(_:)`
/// and the `async` forms, on both stores.
///
/// Core Data's facts, from Apple's documentation of `NSAsynchronousFetchRequest` and
/// `NSPersistentStoreAsynchronousResult` and from the Core Data notes in `../shared/seeds`:
/// an asynchronous fetch request wraps an ordinary fetch request and a completion block and is
/// run with the context's `execute(_:)`, which returns an `NSAsynchronousFetchResult` at once;
/// the completion block runs when the fetch has completed and reads `finalResult`; the result
/// has a `progress` that reports the fetch's progress, a `cancel()` that cancels the fetch,
/// an `operationError` holding what went wrong when the fetch fails, and its
/// `managedObjectContext`; `estimatedResultCount` on the request is a hint Core Data uses to
/// schedule the fetch. The invasivecode article "Core Data Asynchronous Fetching in Swift"
/// adds that only private- and main-queue contexts run them, that the context is not blocked
/// while the fetch runs, and that the results populate the context.
///
/// Where Core Data's documentation is silent, Strata's choices (docs/async-fetch-section.md):
/// a cancelled fetch still runs its completion, with `finalResult` nil and `operationError`
/// code 3072 (Cocoa's `NSUserCancelledError`); the progress counts rows and is updated on the
/// context's queue.
@Suite("Asynchronous fetches")
struct AsynchronousFetchTests {
    /// Eight people saved (ages 20…55, every third score nil).
    static func people(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind, recordsSQL: false)
        let context = stack.newContext()
        try context.performAndWait {
            let names = ["Ann", "bo", "Cy", "Dee", "émile", "Fay", "gus", "Hal"]
            for (index, name) in names.enumerated() {
                let person = ManagedObject(entity: try #require(stack.model.entitiesByName["Person"]), insertInto: context)
                person.setValue(name, forKey: "name")
                person.setValue(20 + index * 5, forKey: "age")
                person.setValue(index % 3 == 0 ? nil : Double(index) * 1.5, forKey: "score")
            }
            try context.save()
        }
        return stack
    }

    /// On `context`'s queue: runs `setup`, executes an asynchronous fetch of `make()` (with
    /// `configure` applied to it), and runs `before` with the result `execute` returned; then
    /// waits for the completion and returns what `inspect` made of the result there.
    static func execute<T, R: Sendable>(
        _ context: ManagedObjectContext, setup: @escaping @Sendable (ManagedObjectContext) throws -> Void = { _ in },
        _ make: @escaping @Sendable () -> FetchRequest<T>,
        configure: @escaping @Sendable (AsynchronousFetchRequest<T>) -> Void = { _ in },
        before: @escaping @Sendable (AsynchronousFetchResult<T>) -> Void = { _ in },
        inspect: @escaping @Sendable (AsynchronousFetchResult<T>) throws -> R
    ) async throws -> R {
        let outcome: Result<R, any Error> = await withCheckedContinuation { continuation in
            context.perform {
                do {
                    try setup(context)
                    let request = AsynchronousFetchRequest(fetchRequest: make()) { result in
                        continuation.resume(returning: Result { try inspect(result) })
                    }
                    configure(request)
                    let result = try context.execute(request)
                    guard let typed = result as? AsynchronousFetchResult<T> else {
                        return continuation.resume(returning: .failure(StrataError(code: 0, message: "execute returned \(type(of: result))")))
                    }
                    before(typed)
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try outcome.get()
    }

    static func request(_ configure: (FetchRequest<ManagedObject>) -> Void = { _ in }) -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        configure(request)
        return request
    }

    static func names(_ objects: [ManagedObject]?) -> [String] {
        (objects ?? []).compactMap { $0.value(forKey: "name") as? String }
    }

    // MARK: Results

    /// Core Data: the completion reads `finalResult`, the objects the wrapped fetch request
    /// returns, populated into the context (Apple's `NSAsynchronousFetchRequest` and
    /// `finalResult` pages; invasivecode). Strata: the same objects `fetch(_:)` returns on the
    /// same context (identical instances: one object per ID), with predicate, sort, limit and
    /// offset, object IDs, dictionaries and counts.
    @Test("results equal a synchronous fetch (predicate, sort, limit and offset, result types)", arguments: TestStack.Kind.allCases)
    func matchesSynchronousFetch(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let context = stack.newContext()
        let shapes: [@Sendable () -> FetchRequest<ManagedObject>] = [
            { Self.request() },
            { Self.request { $0.predicate = ObjectPredicate(format: "age > %@", 30) } },
            { Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: false, comparator: .caseInsensitive)] } },
            {
                Self.request {
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
                    $0.fetchLimit = 3
                    $0.fetchOffset = 2
                }
            },
            { Self.request { $0.returnsObjectsAsFaults = false } },
            { Self.request { $0.fetchBatchSize = 3 } },
        ]
        for make in shapes {
            let (asynchronous, synchronous, registered) = try await Self.execute(
                context, make,
                inspect: { result -> ([String], [String], Bool) in
                    let objects = try #require(result.finalResult)
                    #expect(result.operationError == nil)
                    let fetched = try context.fetch(result.fetchRequest.fetchRequest)
                    #expect(objects.map(ObjectIdentifier.init) == fetched.map(ObjectIdentifier.init))
                    return (Self.names(objects), Self.names(fetched), objects.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
                })
            #expect(asynchronous == synchronous)
            #expect(registered)
        }
        #expect(
            try await Self.execute(
                context,
                {
                    Self.request {
                        $0.fetchLimit = 3
                        $0.fetchOffset = 2
                    }
                }, inspect: { Self.names($0.finalResult) }) == ["Cy", "Dee", "émile"])

        let sameIDs = try await Self.execute(
            context,
            {
                let request = FetchRequest<ManagedObjectID>(entityName: "Person")
                request.resultType = .managedObjectIDResultType
                request.predicate = ObjectPredicate(format: "score == nil")
                return request
            }, inspect: { result in try #require(result.finalResult) == (try context.fetch(result.fetchRequest.fetchRequest)) })
        #expect(sameIDs)
        let count = try await Self.execute(
            context,
            { () -> FetchRequest<NSNumber> in
                let request = FetchRequest<NSNumber>(entityName: "Person")
                request.resultType = .countResultType
                return request
            }, inspect: { (result: AsynchronousFetchResult<NSNumber>) -> Int? in result.finalResult?.first?.intValue })
        #expect(count == 8)
        let dictionaries = try await Self.execute(
            context,
            { () -> FetchRequest<NSDictionary> in
                let request = FetchRequest<NSDictionary>(entityName: "Person")
                request.resultType = .dictionaryResultType
                request.propertiesToFetch = ["name"]
                request.predicate = ObjectPredicate(format: "age < 30")
                request.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)]
                return request
            }, inspect: { (result: AsynchronousFetchResult<NSDictionary>) -> [String] in (result.finalResult ?? []).compactMap { $0["name"] as? String } })
        #expect(dictionaries == ["Ann", "bo"])
    }

    /// Core Data's fetches include the context's unsaved changes by default
    /// (`includesPendingChanges`, Apple's `NSFetchRequest` page), and an asynchronous fetch
    /// returns what its fetch request returns. Strata reads the store off the queue, then merges
    /// the unsaved inserts, updates and deletes on the queue, as `fetch(_:)` does; with
    /// `includesPendingChanges` false they are left out.
    @Test("unsaved changes count as for fetch(_:)", arguments: TestStack.Kind.allCases)
    func pendingChanges(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let context = stack.newContext()
        let entity = try #require(stack.model.entitiesByName["Person"])
        let edit: @Sendable (ManagedObjectContext) throws -> Void = { context in
            guard context.hasChanges == false else { return }
            let all = try context.fetch(Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] })
            all[1].setValue(99, forKey: "age")  // bo moves to the end
            context.delete(all[2])  // Cy goes
            let zed = ManagedObject(entity: entity, insertInto: context)
            zed.setValue("Zed", forKey: "name")
            zed.setValue(21, forKey: "age")
        }
        let shapes: [@Sendable () -> FetchRequest<ManagedObject>] = [
            { Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] } },
            {
                Self.request {
                    $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)]
                    $0.fetchLimit = 3
                    $0.fetchOffset = 1
                }
            },
            { Self.request { $0.predicate = ObjectPredicate(format: "age > 40") } },
            { Self.request { $0.includesPendingChanges = false } },
        ]
        for make in shapes {
            let (asynchronous, synchronous) = try await Self.execute(
                context, setup: edit, make,
                inspect: { result -> ([String], [String]) in
                    let objects = try #require(result.finalResult)
                    let fetched = try context.fetch(result.fetchRequest.fetchRequest)
                    #expect(objects.map(ObjectIdentifier.init) == fetched.map(ObjectIdentifier.init))
                    return (Self.names(objects), Self.names(fetched))
                })
            #expect(asynchronous == synchronous)
        }
        let merged = try await Self.execute(
            context, setup: edit, { Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] } }, inspect: { Self.names($0.finalResult) })
        #expect(merged == ["Ann", "Zed", "Dee", "émile", "Fay", "gus", "Hal", "bo"])
    }

    /// Core Data: the completion block runs when the fetch has completed, in the context
    /// (Apple's `completionBlock` page; only private- and main-queue contexts run asynchronous
    /// fetches, per invasivecode). Strata runs it on the context's queue: with the concurrency
    /// debug mode on, reading the result, the objects and the context there does not trap,
    /// while reading `finalResult` off the queue does.
    @Test("the completion runs on the context's queue (concurrency debug mode)")
    func completionOnQueue() async {
        await #expect(processExitsWith: .success) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let stack = try AsynchronousFetchTests.people(.sqlite)
            let context = stack.newContext()
            let done = DispatchSemaphore(value: 0)
            context.perform {
                let request = AsynchronousFetchRequest(fetchRequest: AsynchronousFetchTests.request()) { result in
                    let names = AsynchronousFetchTests.names(result.finalResult)
                    if names.count == 8 && result.operationError == nil && context.registeredObjects.count == 8 { done.signal() }
                }
                _ = try? context.execute(request)
            }
            let completed = done.wait(timeout: .now() + 60) == .success
            stack.directory.remove()  // exit(_:) runs no deinitializers
            exit(completed ? 0 : 1)
        }
        await #expect(processExitsWith: .failure) {
            setenv("STRATA_CONCURRENCY_DEBUG", "1", 1)
            let stack = try AsynchronousFetchTests.people(.inMemory)
            stack.directory.remove()  // unused by an in-memory store; the trap runs no deinitializers
            let context = stack.newContext()
            nonisolated(unsafe) var leaked: AsynchronousFetchResult<ManagedObject>?
            context.performAndWait {
                leaked = try? context.execute(AsynchronousFetchRequest(fetchRequest: AsynchronousFetchTests.request())) as? AsynchronousFetchResult<ManagedObject>
            }
            _ = leaked?.finalResult  // off the queue: must trap
        }
    }

    // MARK: Progress and cancellation

    /// A million rows written with raw SQL through the store's file (a recursive CTE, about a
    /// second in a debug build), then the coordinator's key table moved past them.
    static func millionPeople() throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.people(), kind: .sqlite, recordsSQL: false)
        let connection = try SQLiteConnection(path: stack.storeURL.path)
        let code = try connection.makeStatement("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'")
        #expect(try code.step())
        let entityCode = code.int64(at: 0)
        try connection.execute(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
            INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) SELECT i, \(entityCode), 1, 'p' || i, i % 100 FROM n;
            UPDATE Z_PRIMARYKEY SET Z_MAX = 1000000 WHERE Z_ENT = \(entityCode);
            COMMIT;
            """)
        return stack
    }

    /// Holds an asynchronous fetch's result for later blocks on its context's queue.
    final class ResultBox: @unchecked Sendable {
        // @unchecked Sendable: `result` is read and written only on the context's queue.
        var result: AsynchronousFetchResult<ManagedObject>?
    }

    /// The row counts a read reported, and a pause at the third one (set on the reading
    /// thread, read by the test).
    final class ReadGate: @unchecked Sendable {
        // @unchecked Sendable: `counts` is guarded by `lock`; the semaphores are thread-safe.
        private let lock = NSLock()
        private var counts: [Int] = []
        let paused = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)

        func report(_ count: Int) {
            guard count > 0 else { return }
            let reports = lock.withLock {
                counts.append(count)
                return counts.count
            }
            if reports == 3 {
                paused.signal()
                resume.wait()
            }
        }

        var reported: [Int] { lock.withLock { counts } }
    }

    /// Core Data: the result's `progress` reports the fetch's progress and `cancel()` cancels
    /// it (Apple's `NSPersistentStoreAsynchronousResult` pages). Strata: the progress counts
    /// rows read (total from a count query first), grows while the reader connection reads,
    /// and a cancel midway stops the read; the completion still runs, reporting the
    /// cancellation (finalResult nil, operationError 3072), and nothing is registered. No
    /// timing is involved: the read pauses at its third report of rows read until the test
    /// has cancelled it.
    @Test("a fetch of 1,000,000 rows reports progress, cancels midway and leaves nothing registered")
    func millionRowsProgressAndCancel() async throws {
        let stack = try Self.millionPeople()
        let context = stack.newContext()
        let box = ResultBox()
        let gate = ReadGate()
        let completion = AsyncStream<(finalResult: Bool, code: Int?, registered: Int, completed: Int64, cancelled: Bool)>.makeStream()
        let progress: Progress = try await context.perform {
            let request = AsynchronousFetchRequest(fetchRequest: Self.request()) { result in
                completion.continuation.yield(
                    (result.finalResult != nil, (result.operationError as? StrataError)?.code, context.registeredObjects.count, result.progress.completedUnitCount, result.progress.isCancelled))
                completion.continuation.finish()
            }
            request.readObserver = { gate.report($0) }
            let result = try #require(try context.execute(request) as? AsynchronousFetchResult<ManagedObject>)
            box.result = result
            return result.progress
        }
        // Wait (off the cooperative pool) until the read pauses at its third report.
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                gate.paused.wait()
                continuation.resume()
            }
        }
        await context.perform { box.result?.cancel() }
        gate.resume.signal()
        let seen = gate.reported
        #expect(seen.count == 3)
        #expect(seen == seen.sorted() && Set(seen).count == seen.count)
        var reported: (finalResult: Bool, code: Int?, registered: Int, completed: Int64, cancelled: Bool)?
        for await value in completion.stream { reported = value }
        let outcome = try #require(reported)
        #expect(!outcome.finalResult)
        #expect(outcome.code == StrataError.Code.userCancelled)
        #expect(outcome.registered == 0)
        #expect(outcome.cancelled)
        #expect(outcome.completed > 0 && outcome.completed < 1_000_000)  // the progress grew, and stopped midway
        // The context is untouched and still works.
        let after = try await context.perform { () -> (Int, Int, Bool) in
            (context.registeredObjects.count, try context.count(for: Self.request()), context.hasChanges)
        }
        #expect(after == (0, 1_000_000, false))
        let total = await context.perform { progress.totalUnitCount }
        #expect(total == 1_000_000)  // counted before the rows were read
    }

    /// Core Data: cancelling the result's progress is the way `cancel()` works too (Foundation's
    /// `Progress.cancel()` is how a progress-reporting operation is cancelled). Strata: a fetch
    /// cancelled through its progress before it ran reports the cancellation and registers
    /// nothing; an `estimatedResultCount` is the total until the rows are read, and after a
    /// successful fetch total and completed are the rows read.
    @Test("progress.cancel() cancels; estimatedResultCount sizes the progress", arguments: TestStack.Kind.allCases)
    func progressCancelAndEstimate(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let context = stack.newContext()
        let cancelled = try await Self.execute(
            context, { Self.request() }, before: { $0.progress.cancel() },
            inspect: { result -> (Bool, Int?, Int) in
                (result.finalResult == nil, (result.operationError as? StrataError)?.code, context.registeredObjects.count)
            })
        #expect(cancelled == (true, StrataError.Code.userCancelled, 0))
        let cancelledByResult = try await Self.execute(
            context, { Self.request() }, before: { $0.cancel() },
            inspect: { result -> (Bool, Int) in
                (result.finalResult == nil, context.registeredObjects.count)
            })
        #expect(cancelledByResult == (true, 0))

        let estimated = try await Self.execute(
            context, { Self.request() }, configure: { $0.estimatedResultCount = 5 },
            before: { result in
                #expect(result.progress.completedUnitCount == 0)
            },
            inspect: { result -> (Int64, Int64, Int, Bool) in
                (result.progress.totalUnitCount, result.progress.completedUnitCount, result.finalResult?.count ?? -1, result.progress.isFinished)
            })
        #expect(estimated == (8, 8, 8, true))
        // A cancel after the completion changes nothing.
        let late = try await Self.execute(
            context, { Self.request() },
            inspect: { result -> Int in
                result.cancel()
                return result.finalResult?.count ?? -1
            })
        #expect(late == 8)
    }

    // MARK: Errors

    /// Core Data: `operationError` holds the details when an asynchronous fetch fails (Apple's
    /// `operationError` page). Strata: an unknown entity, an unknown key, a malformed predicate
    /// and a store failure (the store removed from the coordinator) all arrive as
    /// `operationError` on the context's queue; `execute(_:)` does not throw, nothing traps.
    @Test("errors arrive as operationError on the context's queue", arguments: TestStack.Kind.allCases)
    func errors(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let context = stack.newContext()
        let inspect: @Sendable (AsynchronousFetchResult<ManagedObject>) -> (Bool, Int?, String) = { result in
            let error = result.operationError as? StrataError
            return (result.finalResult == nil, error?.code, error?.message ?? "")
        }
        let unknownEntity = try await Self.execute(context, { FetchRequest<ManagedObject>(entityName: "Nobody") }, inspect: inspect)
        #expect(unknownEntity.0 && unknownEntity.1 == StrataError.Code.coreData && unknownEntity.2.contains("Nobody"))
        let unknownKey = try await Self.execute(context, { Self.request { $0.predicate = ObjectPredicate(format: "height > 3") } }, inspect: inspect)
        #expect(unknownKey.0 && unknownKey.1 != nil && unknownKey.2.contains("height"))
        let malformed = try await Self.execute(context, { Self.request { $0.predicate = ObjectPredicate(format: "age >>> (") } }, inspect: inspect)
        #expect(malformed.0 && malformed.1 != nil)

        for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
        let storeFailure = try await Self.execute(context, { Self.request() }, inspect: inspect)
        #expect(storeFailure.0 && storeFailure.1 != nil && storeFailure.1 != StrataError.Code.userCancelled)
    }

    // MARK: Child contexts

    /// Core Data's child contexts fetch through their parent, seeing its unsaved changes
    /// (Apple's "parent" page of `NSManagedObjectContext`). Strata: a child's asynchronous fetch
    /// reads through the parent (the reading thread waits for the parent's queue, as the
    /// child's own fetch does) and registers the results in the child, with the parent's and
    /// the child's unsaved changes; it can be cancelled the same way.
    @Test("a child context fetches asynchronously through its parent", arguments: TestStack.Kind.allCases)
    func childContext(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let parent = stack.newContext()
        let entity = try #require(stack.model.entitiesByName["Person"])
        try await parent.perform {
            let newcomer = ManagedObject(entity: entity, insertInto: parent)
            newcomer.setValue("Parent's", forKey: "name")
            newcomer.setValue(33, forKey: "age")
            let oldest = try parent.fetch(Self.request { $0.predicate = ObjectPredicate(format: "name == 'Hal'") })
            parent.delete(try #require(oldest.first))
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let setup: @Sendable (ManagedObjectContext) throws -> Void = { child in
            guard !child.hasChanges else { return }
            let own = ManagedObject(entity: entity, insertInto: child)
            own.setValue("Child's", forKey: "name")
            own.setValue(34, forKey: "age")
        }
        let sorted: @Sendable () -> FetchRequest<ManagedObject> = { Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] } }
        let (asynchronous, synchronous, inChild) = try await Self.execute(
            child, setup: setup, sorted,
            inspect: { result -> ([String], [String], Bool) in
                let objects = try #require(result.finalResult)
                let fetched = try child.fetch(result.fetchRequest.fetchRequest)
                #expect(objects.map(ObjectIdentifier.init) == fetched.map(ObjectIdentifier.init))
                return (Self.names(objects), Self.names(fetched), objects.allSatisfy { child.registeredObject(for: $0.objectID) === $0 })
            })
        #expect(asynchronous == synchronous)
        #expect(asynchronous == ["Ann", "bo", "Cy", "Parent's", "Child's", "Dee", "émile", "Fay", "gus"])
        #expect(inChild)

        let fresh = ManagedObjectContext(concurrencyType: .privateQueue)
        fresh.parent = parent
        let cancelled = try await Self.execute(
            fresh, sorted, before: { $0.cancel() },
            inspect: { result -> (Bool, Int) in
                (result.finalResult == nil, fresh.registeredObjects.count)
            })
        #expect(cancelled == (true, 0))
    }

    // MARK: The async forms

    /// Swift concurrency has no Core Data counterpart here (Core Data's `perform` is the only
    /// async API). Strata's forms never hand managed objects to the awaiting task:
    /// `fetchObjectIDs` returns the IDs `fetch(_:)` would (unsaved changes included), and
    /// `fetch(_:then:)` runs a closure with the objects on the context's queue. Cancelling the
    /// task cancels the fetch (CancellationError) and registers nothing.
    @Test("the async forms: IDs, a closure on the queue, task cancellation", arguments: TestStack.Kind.allCases)
    func asyncForms(kind: TestStack.Kind) async throws {
        let stack = try Self.people(kind)
        let context = stack.newContext()
        let entity = try #require(stack.model.entitiesByName["Person"])
        let expectedIDs = try await context.perform { () throws -> [ManagedObjectID] in
            let zed = ManagedObject(entity: entity, insertInto: context)
            zed.setValue("Zed", forKey: "name")
            zed.setValue(21, forKey: "age")
            return try context.fetch(Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] }).map(\.objectID)
        }
        let sorted = Self.request { $0.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: true)] }
        let ids = try await context.fetchObjectIDs(sorted)
        #expect(ids == expectedIDs)
        #expect(ids.count == 9 && ids[1].isTemporaryID)

        let older = Self.request {
            $0.predicate = ObjectPredicate(format: "age >= 40")
            $0.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true, comparator: .caseInsensitive)]
        }
        let (names, registered) = try await context.fetch(older) { (people: [ManagedObject]) in
            (Self.names(people), people.allSatisfy { context.registeredObject(for: $0.objectID) === $0 })
        }
        #expect(names == ["Fay", "gus", "Hal", "émile"])
        #expect(registered)
        await #expect(throws: StrataError.self) { try await context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: "Nobody")) }

        let fresh = stack.newContext()
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await fresh.fetchObjectIDs(Self.request())
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let bodyTask = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await fresh.fetch(Self.request()) { (people: [ManagedObject]) in people.count }
        }
        bodyTask.cancel()
        await #expect(throws: CancellationError.self) { try await bodyTask.value }
        #expect(await fresh.perform { fresh.registeredObjects.count } == 0)
    }
}
