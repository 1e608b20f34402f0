import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite("Batched walks read each batch in one range or IN read; prefetching matches lazy loading")
struct BatchReadTests {
    @Test("a batch of consecutive keys is one range read, any other batch one IN read, with the same rows")
    func rangeOrInRead() throws {
        // Core Data: a batched fetch loads each batch of `fetchBatchSize` objects with one
        // query, in the request's order. Strata picks the read: a range of the primary key when
        // the batch's keys are consecutive (the unsorted walk), an IN list otherwise.
        let stack = try TestStack.people(300)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let ascending = FetchRequest<ManagedObject>(entityName: "Person")
            ascending.fetchBatchSize = 100
            var inKeyOrder: [String] = []
            let rangeReads = try recorder.statements {
                for person in try context.fetchBatched(ascending) { inKeyOrder.append(person.value(forKey: "name") as? String ?? "?") }
            }
            let rangeBatches = SQLRecorder.selects(rangeReads).filter { $0.contains("BETWEEN") }
            #expect(rangeBatches.count == 3, "\(rangeReads)")
            #expect(inKeyOrder == (0..<300).map { "p\($0)" })
            context.reset()

            let descending = FetchRequest<ManagedObject>(entityName: "Person")
            descending.fetchBatchSize = 100
            descending.sortDescriptors = [ObjectSortDescriptor(key: "age", ascending: false)]
            var inAgeOrder: [String] = []
            let inReads = try recorder.statements {
                for person in try context.fetchBatched(descending) { inAgeOrder.append(person.value(forKey: "name") as? String ?? "?") }
            }
            #expect(SQLRecorder.selects(inReads).filter { $0.contains("json_each") }.count == 3, "\(inReads)")
            #expect(SQLRecorder.selects(inReads).filter { $0.contains("BETWEEN") }.isEmpty)
            #expect(inAgeOrder == inKeyOrder.reversed())
        }
    }

    @Test("a batch whose keys have gaps from deleted rows reads the range and keeps only its keys")
    func rangeReadSkipsKeysNotAsked() throws {
        // Core Data: a batched fetch's objects are the matches of the fetch, in order; a row
        // deleted after the IDs were fetched becomes a deleted object when its batch loads.
        let stack = try TestStack.people(200)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = ObjectPredicate(format: "age < 60 OR age >= 90")  // a gap inside a batch
            request.fetchBatchSize = 50
            let results = try context.fetchBatched(request)
            let expected = (0..<200).filter { $0 < 60 || $0 >= 90 }.map { "p\($0)" }
            #expect(results.map { $0.value(forKey: "name") as? String ?? "?" } == expected)
        }
        // A row deleted between the ID fetch and its batch: deleted object, others intact.
        let walker = stack.newContext()
        try walker.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 50
            let results = try walker.fetchBatched(request)
            let writer = stack.newContext()
            try writer.performAndWait {
                let victim = FetchRequest<ManagedObject>(entityName: "Person")
                victim.predicate = ObjectPredicate(format: "age == 120")
                for person in try writer.fetch(victim) { writer.delete(person) }
                try writer.save()
            }
            let names = results.map { $0.value(forKey: "name") as? String }
            #expect(names.count == 200)
            #expect(names[120] == nil)
            #expect(names.compactMap { $0 }.count == 199)
        }
    }

    @Test("fetch with fetchBatchSize: the batch a fault fires in is one range read")
    func faultBatchUsesRangeRead() throws {
        // Core Data: firing one fault of a batched fetch loads its whole batch in one query.
        let stack = try TestStack.people(300)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 100
            let people = try context.fetch(request)
            var ages: [Int64] = []
            let statements = recorder.statements { for person in people { ages.append(person.value(forKey: "age") as? Int64 ?? -1) } }
            #expect(ages == (0..<300).map(Int64.init))
            #expect(SQLRecorder.selects(statements).count == 3)
            #expect(SQLRecorder.selects(statements).allSatisfy { $0.contains("BETWEEN") })
        }
    }

    @Test("a batched walk's batch reads rows newer than the row cache's")
    func batchReadsTheStoreNotTheCache() throws {
        // Core Data: stalenessInterval bounds the age of cached values a context may use; a row
        // read from the store now is never too old. A batch is read from the store, so it sees
        // a save made through another coordinator path even while an older row is cached.
        let stack = try TestStack.people(10)
        let holder = stack.newContext()
        let held = try holder.performAndWait { () -> [ManagedObject] in
            let people = try holder.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for person in people { _ = person.value(forKey: "name") }
            return people
        }
        let writer = stack.newContext()
        try writer.performAndWait {
            for person in try writer.fetch(FetchRequest<ManagedObject>(entityName: "Person")) { person.setValue("renamed", forKey: "name") }
            try writer.save()
        }
        let walker = stack.newContext()
        try walker.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.fetchBatchSize = 5
            let results = try walker.fetchBatched(request)
            #expect(results.allSatisfy { $0.value(forKey: "name") as? String == "renamed" })
        }
        withExtendedLifetime(held) {}
    }

    @Test("a batch keeps registered objects' unsaved changes and fires the fault of a row deleted since the walk began on its own")
    func batchWithChangesAndGoneRow() throws {
        // Core Data: a fetch returns the objects a context already has as they are, unsaved
        // changes included; a fault whose row is gone becomes a deleted object with no values
        // when it fires (`shouldDeleteInaccessibleFaults`, on by default). The loader reads only
        // the rows its faults need; one that does not come back fires alone, as a single fault.
        let stack = try TestStack.people(10)
        let walker = stack.newContext()
        let writer = stack.newContext()
        let request = FetchRequest<ManagedObject>(entityName: "Person")
        request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
        request.fetchBatchSize = 5
        let (results, ids) = try walker.performAndWait { () -> (BatchedFetchResults<ManagedObject>, [ManagedObjectID]) in
            let results = try walker.fetchBatched(request)
            let idRequest = FetchRequest<ManagedObjectID>(entityName: "Person")
            idRequest.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            idRequest.resultType = .managedObjectIDResultType
            let ids = try walker.fetch(idRequest)
            // Before the second batch loads: p6 changed here, p7 deleted elsewhere.
            walker.object(with: ids[6]).setValue("changed", forKey: "name")
            return (results, ids)
        }
        try writer.performAndWait {
            writer.delete(writer.object(with: ids[7]))
            try writer.save()
        }
        walker.performAndWait {
            #expect(results.count == 10)
            let second = (5..<10).map { results[$0] }
            #expect(second.map(\.objectID) == Array(ids[5..<10]))
            #expect(second[1].value(forKey: "name") as? String == "changed")
            #expect(second[1].isUpdated)
            #expect(second[2].isDeleted)
            #expect(second[2].value(forKey: "name") == nil)
            #expect([second[0], second[3], second[4]].map { $0.value(forKey: "name") as? String } == ["p5", "p8", "p9"])
            #expect([second[0], second[1], second[3], second[4]].allSatisfy { !$0.isFault })
            #expect(throws: StrataError.self) { try walker.existingObject(with: ids[7]) }
        }
        withExtendedLifetime(results) {}
    }

    @Test("prefetched to-many and to-one contents equal the lazily loaded ones")
    func prefetchedEqualsLazy() throws {
        // Core Data: relationshipKeyPathsForPrefetching changes how many queries run, never
        // what a relationship holds.
        let stack = try TestStack.ownersAndPets(owners: 30, pets: 200, petlessOwner: 7)
        func contents(prefetching: Bool) throws -> [String: Set<String>] {
            let reader = stack.newContext()
            return try reader.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Owner")
                if prefetching { request.relationshipKeyPathsForPrefetching = ["pets", "pets.owner"] }
                var result: [String: Set<String>] = [:]
                for owner in try reader.fetch(request) {
                    let pets = owner.value(forKey: "pets") as? Set<ManagedObject> ?? []
                    let names = Set(pets.map { ($0.value(forKey: "name") as? String ?? "?") + "/" + (($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String ?? "?") })
                    result[owner.value(forKey: "name") as? String ?? "?"] = names
                }
                return result
            }
        }
        let lazy = try contents(prefetching: false)
        #expect(lazy.count == 30)
        #expect(lazy["owner 7"] == [])
        #expect(try contents(prefetching: true) == lazy)
    }
}
