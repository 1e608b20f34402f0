import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// One key space of a context's identity map (`Objects/PrimaryKeyTable.swift`). Core Data's
/// `registeredObject(for:)` finds at most one object per ID, and only while the context has it:
/// the table must find each registered object by its number, forget it when it goes, and keep
/// doing so while its pages move between the directory and the spare list (scattered keys take
/// one page each; emptied pages are reused up to the spare limit, then given back).
@Suite("Identity map pages")
struct PrimaryKeyTableTests {
    private static func entry(_ object: ManagedObject) -> PrimaryKeyTable.Entry { Unmanaged.passUnretained(object) }

    @Test("dense, scattered and sparse numbers: set finds each, replaces in place, remove only drops the entry it is given")
    func setFindRemove() {
        let table = PrimaryKeyTable()
        let objects = ModelFixtures.detachedPeople(6)
        // Numbers on one page, on pages far apart, negative and beyond the paged range.
        let numbers: [Int64] = [1, 2, 64 * 9_000 + 5, 64 * 15_000, -7, Int64(1) << 40]
        for (object, number) in zip(objects, numbers) { #expect(table.set(Self.entry(object), at: number)) }
        for (object, number) in zip(objects, numbers) { #expect(table.object(at: number) === object) }
        #expect(table.object(at: 3) == nil && table.object(at: 64 * 12_000) == nil && table.object(at: -8) == nil)
        // Setting an occupied number replaces the entry and says so.
        #expect(!table.set(Self.entry(objects[1]), at: 1))
        #expect(table.object(at: 1) === objects[1])
        // Removing with the wrong object leaves the entry.
        #expect(!table.remove(at: 1, ifItIs: Self.entry(objects[0])))
        #expect(table.object(at: 1) === objects[1])
        for (object, number) in zip(objects, numbers).dropFirst() { #expect(table.remove(at: number, ifItIs: Self.entry(object))) }
        // Number 1 holds the object that replaced the first one: removed once, then gone.
        #expect(table.remove(at: 1, ifItIs: Self.entry(objects[1])))
        #expect(!table.remove(at: 1, ifItIs: Self.entry(objects[1])))
        #expect(numbers.allSatisfy { table.object(at: $0) == nil })
        #expect(table.entries.isEmpty)
    }

    @Test("entries and removeAll reach the last live page, past pages emptied before it")
    func walksReachTheLastLivePage() {
        let table = PrimaryKeyTable()
        let objects = ModelFixtures.detachedPeople(4)
        // Pages 0, 9,000 and 15,000 of the directory, and one beyond the paged range.
        let numbers: [Int64] = [3, 64 * 9_000 + 1, 64 * 15_000 + 63, Int64(1) << 40]
        for (object, number) in zip(objects, numbers) { #expect(table.set(Self.entry(object), at: number)) }
        // The first page empties; the walk still finds the pages after it.
        #expect(table.remove(at: numbers[0], ifItIs: Self.entry(objects[0])))
        #expect(Set(table.entries.map { $0.toOpaque() }) == Set(objects.dropFirst().map { Self.entry($0).toOpaque() }))
        // removeAll forgets the last page too, and the table works again afterwards.
        table.removeAll()
        #expect(table.entries.isEmpty)
        #expect(numbers.allSatisfy { table.object(at: $0) == nil })
        #expect(table.set(Self.entry(objects[2]), at: numbers[2]))
        #expect(table.entries.map { $0.toOpaque() } == [Self.entry(objects[2]).toOpaque()])
    }

    @Test("pages emptied by removals and by removeAll come back empty and working, beyond the spare limit too")
    func pagesAreReused() {
        let table = PrimaryKeyTable()
        let count = PrimaryKeyTable.sparePageLimit * 2 + 3
        let objects = ModelFixtures.detachedPeople(count)
        // One object per page, three rounds: the pages go to the spares (up to the limit) or are
        // given back, and the next round takes them again.
        for round in 0..<3 {
            let numbers = (0..<count).map { Int64(($0 * 37 + round) % 5_000) * 64 + Int64(round) }
            for (object, number) in zip(objects, numbers) { #expect(table.set(Self.entry(object), at: number)) }
            for (object, number) in zip(objects, numbers) { #expect(table.object(at: number) === object) }
            #expect(Set(table.entries.map { $0.toOpaque() }) == Set(objects.map { Self.entry($0).toOpaque() }))
            if round == 1 {
                table.removeAll()
            } else {
                for (object, number) in zip(objects, numbers) { #expect(table.remove(at: number, ifItIs: Self.entry(object))) }
            }
            #expect(table.entries.isEmpty)
            #expect(numbers.allSatisfy { table.object(at: $0) == nil })
        }
        // A reused page holds nothing from before: a full page set after the rounds has only its own.
        for (slot, object) in objects.prefix(PrimaryKeyTable.pageSize).enumerated() { #expect(table.set(Self.entry(object), at: Int64(slot))) }
        #expect(table.entries.count == min(count, PrimaryKeyTable.pageSize))
    }

    @Test("a context that fetches, resets and fetches again finds each object once by its ID (scattered keys)")
    func registryThroughAContext() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        let entity = try #require(stack.model.entitiesByName["Person"])
        try context.performAndWait {
            for index in 0..<300 {
                let person = ManagedObject(entity: entity, insertInto: context)
                person.setValue(Int64((index * 7_919) % 300), forKey: "age")
            }
            try context.save()
            for _ in 0..<4 {
                let request = FetchRequest<ManagedObject>(entityName: "Person")
                request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
                request.fetchLimit = 100
                let people = try context.fetch(request)
                #expect(people.count == 100)
                for person in people { #expect(context.registeredObject(for: person.objectID) === person) }
                context.reset()
                #expect(people.allSatisfy { context.registeredObject(for: $0.objectID) == nil })
            }
        }
    }
}
