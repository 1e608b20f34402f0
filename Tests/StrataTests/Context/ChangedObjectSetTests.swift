import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// The unit of work's sets (`Context/UnitOfWork/ChangedObjectSet.swift`). Core Data's
/// `insertedObjects`, `updatedObjects` and `deletedObjects` hold each changed object once, and a
/// save writes inserted rows in the order the objects were inserted (so primary keys follow it);
/// the set's iterator, which asks for objects ahead of the one it returns (`Support/Prefetch.swift`),
/// must still return each member once, in that order, skipping removed ones.
@Suite("Changed-object sets")
struct ChangedObjectSetTests {
    @Test("iteration returns the members in insertion order, skips removed ones (holes at the start, middle and end), and is not changed by edits during the loop")
    func iterationOrderAndHoles() {
        let objects = ModelFixtures.detachedPeople(40)
        var set = ChangedObjectSet()
        for object in objects { set.insert(object) }
        set.insert(objects[3])  // already a member: no second entry
        #expect(Array(set).map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
        // Holes within the prefetch distance of each other, and at both ends.
        let removed: Set<Int> = [0, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 20, 38, 39]
        for index in removed.sorted() { set.remove(objects[index]) }
        let expected = objects.indices.filter { !removed.contains($0) }.map { ObjectIdentifier(objects[$0]) }
        #expect(set.count == expected.count)
        #expect(Array(set).map(ObjectIdentifier.init) == expected)
        // The iterator walks the set as it was when the loop began.
        var seen: [ObjectIdentifier] = []
        for object in set {
            seen.append(ObjectIdentifier(object))
            if seen.count == 1 {
                set.remove(objects[2])
                set.insert(objects[0])
            }
        }
        #expect(seen == expected)
        #expect(set.contains(objects[0]) && !set.contains(objects[2]))
    }

    @Test("the change set's walk visits the iterator's members in its order: holes within both prefetch distances and at both ends; fetched, changed, detached objects")
    func prefetchingWalkMatchesIteration() throws {
        for count in [0, 1, Prefetch.distance, 2 * Prefetch.distance + 1, 60] {
            let objects = ModelFixtures.detachedPeople(count)
            var set = ChangedObjectSet()
            for object in objects { set.insert(object) }
            for index in stride(from: 0, to: count, by: 3) { set.remove(objects[index]) }
            var walked: [ObjectIdentifier] = []
            set.forEachPrefetchingSavedState { walked.append(ObjectIdentifier($0)) }
            #expect(walked == Array(set).map(ObjectIdentifier.init))
            #expect(walked.count == set.count)
        }
        // The walk in a save (`UnitOfWork.makeChangeSet`): objects with a snapshot, with a draft of
        // changed values, and (detached) with neither. Core Data's save writes every updated
        // object's changes.
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        let entity = try #require(stack.model.entitiesByName["Person"])
        try context.performAndWait {
            for index in 0..<30 {
                let person = ManagedObject(entity: entity, insertInto: context)
                person.setValue("P\(index)", forKey: "name")
            }
            try context.save()
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for (index, person) in fetched.enumerated() where index % 2 == 0 { person.setValue("changed \(index)", forKey: "name") }
            for person in fetched + ModelFixtures.detachedPeople(3) { person.prefetchSavedState() }
            try context.save()
            context.reset()
            let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
            #expect(names.count == 30)
            #expect(names.filter { $0.hasPrefix("changed ") }.count == 15)
        }
    }

    @Test("Prefetch.unretainedObject finds the object at an index, nil for a nil reference or past the end; Prefetch.address ignores nil")
    func unretainedObjectLookups() {
        let objects = ModelFixtures.detachedPeople(2)
        let references: [ManagedObject?] = [objects[0], nil, objects[1]]
        references.withUnsafeBufferPointer { buffer in
            #expect(Prefetch.unretainedObject(in: buffer, at: 0)?.takeUnretainedValue() === objects[0])
            #expect(Prefetch.unretainedObject(in: buffer, at: 1) == nil)
            #expect(Prefetch.unretainedObject(in: buffer, at: 2)?.takeUnretainedValue() === objects[1])
            #expect(Prefetch.unretainedObject(in: buffer, at: 3) == nil)
        }
        Prefetch.address(nil)
        objects[0].prefetchSavedState()  // no values and no snapshot yet: nothing to ask for
    }

    @Test("an empty set and a set whose members were all removed iterate nothing")
    func emptySets() {
        let objects = ModelFixtures.detachedPeople(3)
        var set = ChangedObjectSet()
        #expect(Array(set).isEmpty)
        for object in objects { set.insert(object) }
        for object in objects { set.remove(object) }
        #expect(set.isEmpty)
        #expect(Array(set).isEmpty)
    }

    @Test("Prefetch.forEach visits every element once in order, for short and long arrays; Prefetch.object ignores indexes past the end and nil references")
    func prefetchVisitsEveryElement() {
        for count in [0, 1, Prefetch.distance, Prefetch.distance + 1, 100] {
            let objects = ModelFixtures.detachedPeople(count)
            var visited: [ObjectIdentifier] = []
            Prefetch.forEach(objects) { visited.append(ObjectIdentifier($0)) }
            #expect(visited == objects.map(ObjectIdentifier.init))
            Prefetch.object(in: objects, at: count + Prefetch.distance)
        }
        let optionals: [ManagedObject?] = [nil, nil] + ModelFixtures.detachedPeople(2).map { $0 }
        for index in 0..<(optionals.count + 2) { Prefetch.object(in: optionals, at: index) }
    }
}
