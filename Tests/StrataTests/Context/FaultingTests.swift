import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Faulting, row cache and batched fetching")
struct FaultingTests {
    /// A people store with `count` rows.
    func peopleStack(_ count: Int, kind: TestStack.Kind = .sqlite) throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            let entity = try #require(stack.model.entitiesByName["Person"])
            for index in 0..<count {
                let person = ManagedObject(entity: entity, insertInto: context)
                person.setValue("p\(index)", forKey: "name")
                person.setValue(index, forKey: "age")
            }
            try context.save()
        }
        return stack
    }

    func selects(_ statements: [String]) -> [String] { statements.filter { $0.hasPrefix("SELECT") } }

    @Test("fault → fired → refreshed → fired, with the hooks and one query each time")
    func faultStates() throws {
        let stack = try peopleStack(3)
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
            #expect(selects(statements).count == 1)
            context.refresh(person, mergeChanges: false)
            #expect(person.isFault)
            statements = recorder.statements { #expect(person.value(forKey: "name") as? String == "p0") }
            #expect(selects(statements).count == 1)
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
        let stack = try peopleStack(50)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let people = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            #expect(people.filter { !$0.isFault }.isEmpty)
            let statements = recorder.statements {
                for person in people { _ = person.value(forKey: "age") }
            }
            #expect(selects(statements).isEmpty)
        }
    }

    @Test("the row cache is shared: another context fires faults without a query, within its staleness")
    func sharedRowCache() throws {
        let stack = try peopleStack(5)
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
            #expect(selects(statements).isEmpty)
        }
        let strict = stack.newContext()
        strict.stalenessInterval = 0
        strict.performAndWait {
            let statements = recorder.statements { _ = strict.object(with: ids[0]).value(forKey: "name") }
            #expect(selects(statements).count == 1)
        }
    }

    @Test("prefetching loads each relationship key path in one query, not one per object")
    func prefetchOneQueryPerKeyPath() throws {
        let stack = try TestStack(model: PrefetchModel.make())
        let context = stack.newContext()
        try context.performAndWait {
            let model = stack.model
            let owners = try (0..<20).map { index -> ManagedObject in
                let owner = ManagedObject(entity: try #require(model.entitiesByName["Owner"]), insertInto: context)
                owner.setValue("owner \(index)", forKey: "name")
                return owner
            }
            for index in 0..<200 {
                let pet = ManagedObject(entity: try #require(model.entitiesByName["Pet"]), insertInto: context)
                pet.setValue("pet \(index)", forKey: "name")
                pet.setValue(owners[index % owners.count], forKey: "owner")
            }
            try context.save()
            context.reset()  // release the writer's objects, so the row cache has nothing to offer
        }
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
            // One for the owners, one for the pets' keys, one for the pets' rows.
            #expect(selects(statements).count == 3, "\(statements)")

            reader.reset()
            let petRequest = FetchRequest<ManagedObject>(entityName: "Pet")
            petRequest.relationshipKeyPathsForPrefetching = ["owner"]
            statements = try recorder.statements {
                for pet in try reader.fetch(petRequest) { _ = (pet.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") }
            }
            #expect(selects(statements).count == 2, "\(statements)")

            reader.reset()
            let unprefetched = FetchRequest<ManagedObject>(entityName: "Pet")
            unprefetched.fetchLimit = 30
            statements = try recorder.statements {
                for pet in try reader.fetch(unprefetched) { _ = (pet.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") }
            }
            #expect(selects(statements).count > 2)  // without prefetching, owners fire one by one
        }
    }

    @Test("a batched fetch reads each batch once and releases old ones")
    func batchedReads() throws {
        let stack = try peopleStack(1_000)
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
            #expect(selects(statements).count == 10)
            // Reading inside a loaded batch costs nothing.
            let again = recorder.statements { _ = results[999].value(forKey: "name") }
            #expect(selects(again).isEmpty)
            #expect(results.batchesLoaded == 10)
            // Released batches' objects are gone from the context.
            #expect(context.registeredObjects.count <= 200)
        }
    }

    @Test("fetch with fetchBatchSize: faults fire a whole batch at a time")
    func batchFaulting() throws {
        let stack = try peopleStack(300)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 100
            let people = try context.fetch(request)
            let statements = recorder.statements {
                for person in people { _ = person.value(forKey: "name") }
            }
            #expect(selects(statements).count == 3)
        }
    }

    @Test("a fault whose row was deleted elsewhere", arguments: [true, false])
    func deletedRowFault(deleteInaccessible: Bool) throws {
        let stack = try peopleStack(2)
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
        let stack = try peopleStack(200_000)
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

/// Owners with pets, for prefetching tests.
enum PrefetchModel {
    static func make() -> ManagedObjectModel {
        let owner = EntityDescription(name: "Owner")
        let pet = EntityDescription(name: "Pet")
        owner.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "pets", destination: pet, inverse: "owner", toMany: true),
        ]
        pet.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "owner", destination: owner, inverse: "pets"),
        ]
        return ManagedObjectModel(entities: [owner, pet])
    }
}
