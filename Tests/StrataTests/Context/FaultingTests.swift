import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Faulting, row cache and batched fetching")
struct FaultingTests {
    @Test("fault → fired → refreshed → fired, with the hooks and one query each time")
    func faultStates() throws {
        let stack = try TestStack.people(3)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        context.stalenessInterval = 0  // never reuse cached rows: every firing reads the store
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.includesPropertyValues = false
            let person = try #require(try context.fetch(request).first)
            #expect(person.isFault)
            var statements = recorder.statements { _ = person.value(forKey: "name") }
            #expect(!person.isFault)
            #expect(SQLRecorder.selects(statements).count == 1)
            context.refresh(person, mergeChanges: false)
            #expect(person.isFault)
            statements = recorder.statements { #expect(person.value(forKey: "name") as? String == "p0") }
            #expect(SQLRecorder.selects(statements).count == 1)
            #expect(!person.isFault)
            // A changed object refreshed with mergeChanges keeps its change.
            person.setValue("changed", forKey: "name")
            context.refresh(person, mergeChanges: true)
            #expect(person.value(forKey: "name") as? String == "changed")
            #expect(person.isUpdated)
            context.refresh(person, mergeChanges: false)
            #expect(person.value(forKey: "name") as? String == "p0")
            #expect(!context.hasChanges)
        }
    }

    @Test("returnsObjectsAsFaults: values come with the fetch, firing costs no query")
    func faultsFromFetchedRows() throws {
        let stack = try TestStack.people(50)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.filter { !$0.isFault }.isEmpty)
            let statements = recorder.statements {
                for person in people { _ = person.value(forKey: "age") }
            }
            #expect(SQLRecorder.selects(statements).isEmpty)
        }
    }

    @Test("the row cache is shared: another context fires faults without a query, within its staleness")
    func sharedRowCache() throws {
        let stack = try TestStack.people(5)
        let first = stack.newContext()
        first.retainsRegisteredObjects = true  // keep the first context's objects (and their rows) alive
        let ids: [ManagedObjectID] = try first.performAndWait {
            let people = try first.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            return people.map(\.objectID)
        }
        let recorder = stack.recordSQL()
        let second = stack.newContext()
        second.performAndWait {
            let statements = recorder.statements {
                for id in ids { _ = second.object(with: id).value(forKey: "name") }
            }
            #expect(SQLRecorder.selects(statements).isEmpty)
        }
        let strict = stack.newContext()
        strict.stalenessInterval = 0
        strict.performAndWait {
            let statements = recorder.statements { _ = strict.object(with: ids[0]).value(forKey: "name") }
            #expect(SQLRecorder.selects(statements).count == 1)
        }
    }

    @Test("prefetching loads each relationship key path in one query, not one per object")
    func prefetchOneQueryPerKeyPath() throws {
        let stack = try TestStack.ownersAndPets(owners: 20, pets: 200)
        let recorder = stack.recordSQL()
        let reader = stack.newContext()
        try reader.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Owner")
            request.relationshipKeyPathsForPrefetching = ["pets"]
            var statements = try recorder.statements {
                let owners = try reader.fetch(request)
                #expect(owners.count == 20)
                var total = 0
                for owner in owners {
                    let pets = owner.value(forKey: "pets") as? Set<ManagedObject> ?? []
                    total += pets.count
                    for pet in pets { _ = pet.value(forKey: "name") }
                }
                #expect(total == 200)
            }
            // One for the owners, one for the pets' keys with their rows (Core Data prefetches
            // a to-many with one fetch per key path).
            #expect(SQLRecorder.selects(statements).count == 2, "\(statements)")

            reader.reset()
            let petRequest = FetchRequest<ManagedObject>(entityName: "Pet")
            petRequest.relationshipKeyPathsForPrefetching = ["owner"]
            statements = try recorder.statements {
                for pet in try reader.fetch(petRequest) { _ = (pet.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") }
            }
            #expect(SQLRecorder.selects(statements).count == 2, "\(statements)")

            reader.reset()
            let unprefetched = FetchRequest<ManagedObject>(entityName: "Pet")
            unprefetched.fetchLimit = 30
            statements = try recorder.statements {
                for pet in try reader.fetch(unprefetched) { _ = (pet.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") }
            }
            #expect(SQLRecorder.selects(statements).count > 2)  // without prefetching, owners fire one by one
        }
    }

    @Test("a batched fetch reads each batch once and releases old ones")
    func batchedReads() throws {
        let stack = try TestStack.people(1_000)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 100
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            let results = try context.fetchBatched(request, retainedBatches: 2)
            #expect(results.count == 1_000)
            var ages: [Int64] = []
            let statements = recorder.statements {
                for person in results { ages.append(person.value(forKey: "age") as? Int64 ?? -1) }
            }
            #expect(ages == (0..<1_000).map(Int64.init))
            #expect(results.batchesLoaded == 10)
            #expect(results.batchesReleased == 8)
            #expect(SQLRecorder.selects(statements).count == 10)
            // Reading inside a loaded batch costs nothing.
            let again = recorder.statements { _ = results[999].value(forKey: "name") }
            #expect(SQLRecorder.selects(again).isEmpty)
            #expect(results.batchesLoaded == 10)
            // Released batches' objects are gone from the context.
            #expect(context.registeredObjects.count <= 200)
        }
    }

    @Test("fetch with fetchBatchSize: faults fire a whole batch at a time")
    func batchFaulting() throws {
        let stack = try TestStack.people(300)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 100
            let people = try context.fetch(request)
            let statements = recorder.statements {
                for person in people { _ = person.value(forKey: "name") }
            }
            #expect(SQLRecorder.selects(statements).count == 3)
        }
    }

    @Test("both batched paths leave the row cache unfilled; small fetches and faults fill it, pinned reads never", arguments: TestStack.Kind.allCases)
    func batchedPathsDoNotFillTheRowCache(kind: TestStack.Kind) throws {
        // Strata rule (docs/faulting.md): a batched walk reads each row once and releases it a
        // batch later, so its batches stay out of the row cache — whether it is a
        // fetchBatched(_:) walk or a fetch with fetchBatchSize whose faults fire a batch at a
        // time. Fetches of up to 10,000 rows and single faults fill it (Core Data's row cache:
        // another context fires the same objects without I/O); reads through a query
        // generation never do (their rows may be older than the cache's).
        let stack = try TestStack.people(300, kind: kind)
        let cache = stack.coordinator.rowCache
        try #require(cache.liveCount == 0)  // the save's rows went with the writer's objects
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.fetchBatchSize = 100
        let faulting = stack.newContext()
        try faulting.performAndWait {
            let people = try faulting.fetch(request)
            for person in people { _ = person.value(forKey: "name") }
            #expect(people.allSatisfy { !$0.isFault })
            #expect(cache.liveCount == 0)  // while all 300 are alive
            withExtendedLifetime(people) {}
        }
        let walking = stack.newContext()
        try walking.performAndWait {
            let results = try walking.fetchBatched(request)
            #expect(results.filter { $0.value(forKey: "name") != nil }.count == 300)
            #expect(results.batchesLoaded == 3)
            #expect(cache.liveCount == 0)  // while the last two batches are alive
            withExtendedLifetime(results) {}
        }
        let ids = FetchRequest<ManagedObjectID>(entityName: "Person")
        ids.resultType = .managedObjectIDResultType
        let pinned = stack.newContext()
        try pinned.performAndWait {
            try pinned.setQueryGenerationFrom(.current)
            let fault = pinned.object(with: try #require(try pinned.fetch(ids).first))
            _ = fault.value(forKey: "name")
            #expect(!fault.isFault)
            let people = try pinned.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.count == 300)
            #expect(cache.liveCount == 0)
            withExtendedLifetime(people) {}
        }
        let single = stack.newContext()
        try single.performAndWait {
            let fault = single.object(with: try #require(try single.fetch(ids).first))
            _ = fault.value(forKey: "name")
            #expect(!fault.isFault)
            #expect(cache.liveCount == 1)
            withExtendedLifetime(fault) {}
        }
        let plain = stack.newContext()
        try plain.performAndWait {
            let people = try plain.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(cache.liveCount == 300)
            withExtendedLifetime(people) {}
        }
    }

    @Test("a parent context passes its child's read options on", arguments: TestStack.Kind.allCases)
    func parentPassesReadOptionsOn(kind: TestStack.Kind) throws {
        // Core Data: a child context fetches and fires faults through its parent context, which
        // answers from its own objects or asks its own parent store. Strata rule (DESIGN.md):
        // read modes are parameters of every read, and a parent passes its child's on where it
        // reads through — here, a child's batched walks stay out of the row cache.
        let stack = try TestStack.people(300, kind: kind)
        let cache = stack.coordinator.rowCache
        try #require(cache.liveCount == 0)
        let parent = stack.newContext()
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.fetchBatchSize = 100
        for walk in [false, true] {
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = parent
            try child.performAndWait {
                // The results stay alive while the cache is checked (entries hold rows weakly).
                let people: any Collection<ManagedObject> = walk ? try child.fetchBatched(request) : try child.fetch(request)
                #expect(people.filter { $0.value(forKey: "name") != nil }.count == 300)
                #expect(cache.liveCount == 0, "walk: \(walk)")
                withExtendedLifetime(people) {}
            }
        }
    }

    @Test("a parent context passes its child's staleness on to the coordinator")
    func parentPassesStalenessOn() throws {
        // Core Data: a context's stalenessInterval decides whether a fault may fire from the
        // row cache; a child context's faults reach the row cache through its parent. Strata:
        // the staleness travels as ReadOptions.maxAge, which the parent passes on unchanged.
        let stack = try TestStack.people(5)
        let holder = stack.newContext()
        holder.retainsRegisteredObjects = true  // keeps the rows cached
        let ids: [ManagedObjectID] = try holder.performAndWait {
            try holder.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map(\.objectID)
        }
        let recorder = stack.recordSQL()
        let parent = stack.newContext()
        for (staleness, queries) in [(-1.0, 0), (0.0, 1)] {
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = parent
            child.stalenessInterval = staleness
            child.performAndWait {
                let statements = recorder.statements { _ = child.object(with: ids[0]).value(forKey: "name") }
                #expect(SQLRecorder.selects(statements).count == queries, "staleness \(staleness)")
            }
        }
    }

    @Test("a fault whose row was deleted elsewhere", arguments: [true, false])
    func deletedRowFault(deleteInaccessible: Bool) throws {
        let stack = try TestStack.people(2)
        let reader = stack.newContext()
        reader.shouldDeleteInaccessibleFaults = deleteInaccessible
        let id: ManagedObjectID = try reader.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Person")
            request.resultType = .managedObjectIDResultType
            return try #require(try reader.fetch(request).first)
        }
        let writer = stack.newContext()
        try writer.performAndWait {
            writer.delete(writer.object(with: id))
            try writer.save()
        }
        try reader.performAndWait {
            let fault = reader.object(with: id)
            #expect(fault.isFault)
            if deleteInaccessible {
                try fault.fulfillFault()
                #expect(fault.isDeleted)
                #expect(fault.value(forKey: "name") == nil)
            } else {
                let error = try #require(throws: StrataError.self) { try fault.fulfillFault() }
                #expect(error.code == StrataError.Code.managedObjectReferentialIntegrity)
                #expect(error.objectID == id)
                #expect(fault.isFault)
            }
            #expect(throws: StrataError.self) { try reader.existingObject(with: id) }
        }
    }

    @Test("iterating 200,000 batched results keeps resident memory flat")
    func batchedMemoryIsFlat() throws {
        let stack = try TestStack.people(200_000)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 500
            let results = try context.fetchBatched(request)
            let baseline = ProcessMemory.residentBytes()
            var peak = baseline
            var total: Int64 = 0
            for (index, person) in results.enumerated() {
                total += person.value(forKey: "age") as? Int64 ?? 0
                if index % 5_000 == 0 { peak = max(peak, ProcessMemory.residentBytes()) }
            }
            #expect(total == Int64(199_999) * 200_000 / 2)
            let growth = peak - baseline
            // 200,000 fully materialised objects take well over 60 MB; two batches of 500 a few.
            #expect(growth < 24 * 1_048_576, "resident memory grew by \(growth) bytes while iterating")
            #expect(context.registeredObjects.count <= 1_000)
        }
    }
}
