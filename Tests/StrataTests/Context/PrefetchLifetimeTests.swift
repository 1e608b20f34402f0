import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// How long prefetched objects live. Core Data keeps an object a fired relationship points to
/// alive while the object that points to it lives, and prefetching fires those relationships
/// for every result: the targets must fire without I/O while their owners are in use, and be
/// released when the owners are (or when a refresh or reset turns the owners back into faults).
/// Strata holds one prefetch step's targets in one array shared by all owners of the step
/// (`Objects/FetchGroupLink.swift`).
@Suite("Prefetched objects' lifetime")
struct PrefetchLifetimeTests {
    @Test("one surviving owner keeps its prefetched to-one target: it fires without a query")
    func survivingOwnerKeepsItsTarget() throws {
        let stack = try TestStack.ownersAndPets(owners: 4, pets: 20)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.relationshipKeyPathsForPrefetching = ["owner"]
            let kept: ManagedObject = try {
                let pets = try context.fetch(request)
                #expect(pets.count == 20)
                return try #require(pets.last)
            }()
            let statements = recorder.statements {
                let owner = kept.value(forKey: "owner") as? ManagedObject
                #expect((owner?.value(forKey: "name") as? String)?.hasPrefix("owner ") == true)
            }
            #expect(SQLRecorder.selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("owners next to each other that share a to-one target get the one object, read once")
    func neighbouringOwnersShareTheirTarget() throws {
        // Core Data's prefetching loads each target once, whatever number of owners point at
        // it; sorted by their owner, pets of one owner come one after the other (the step's
        // repeat of the last target, `Context/ManagedObjectContext+Prefetch.swift`).
        let stack = try TestStack.ownersAndPets(owners: 3, pets: 12)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.sortDescriptors = [ObjectSortDescriptor(key: "owner.name"), ObjectSortDescriptor(key: "name")]
            request.relationshipKeyPathsForPrefetching = ["owner"]
            var pets: [ManagedObject] = []
            let fetchStatements = try recorder.statements { pets = try context.fetch(request) }
            #expect(pets.count == 12)
            #expect(SQLRecorder.selects(fetchStatements).count == 2, "\(fetchStatements)")
            let readStatements = recorder.statements {
                let owners = pets.map { $0.value(forKey: "owner") as? ManagedObject }
                let names = owners.map { $0?.value(forKey: "name") as? String }
                #expect(names == (0..<3).flatMap { owner in Array(repeating: "owner \(owner)", count: 4) })
                #expect(Set(owners.compactMap { $0.map(ObjectIdentifier.init) }).count == 3)
                for (pet, owner) in zip(pets, owners) {
                    #expect((pet.value(forKey: "name") as? String).flatMap { Int($0.dropFirst(4)) }.map { "owner \($0 % 3)" } == owner?.value(forKey: "name") as? String)
                }
            }
            #expect(SQLRecorder.selects(readStatements).isEmpty, "\(readStatements)")
        }
    }

    @Test("prefetched to-many members stay loaded while their owner lives")
    func toManyMembersStayLoaded() throws {
        let stack = try TestStack.ownersAndPets(owners: 4, pets: 20)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Owner")
            request.relationshipKeyPathsForPrefetching = ["pets"]
            let kept = try #require(try context.fetch(request).first)
            let statements = recorder.statements {
                let pets = kept.value(forKey: "pets") as? Set<ManagedObject> ?? []
                #expect(pets.count == 5)
                for pet in pets { #expect((pet.value(forKey: "name") as? String)?.hasPrefix("pet ") == true) }
            }
            #expect(SQLRecorder.selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("an owner prefetched by two key paths holds the targets of both")
    func twoKeyPathsOnOneOwner() throws {
        let stack = try TestStack.ownersAndPets(owners: 4, pets: 20)
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            // "owner" gives the pets one step's targets; "owner.pets" prefetches the owners again
            // from the same pets (they already hold the first step's: their own array then), and
            // then the owners' pets.
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.relationshipKeyPathsForPrefetching = ["owner", "owner.pets"]
            let kept = try #require(try context.fetch(request).first)
            let statements = recorder.statements {
                let owner = kept.value(forKey: "owner") as? ManagedObject
                #expect(owner != nil)
                let siblings = owner?.value(forKey: "pets") as? Set<ManagedObject> ?? []
                #expect(siblings.count == 5)
                for pet in siblings { _ = pet.value(forKey: "name") }
            }
            #expect(SQLRecorder.selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("targets are released with their owners, and by refresh and reset")
    func targetsAreReleased() throws {
        let stack = try TestStack.ownersAndPets(owners: 4, pets: 20)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.relationshipKeyPathsForPrefetching = ["owner"]

            // Owners released: nothing else holds the targets.
            weak var released: ManagedObject?
            try {
                let pets = try context.fetch(request)
                released = pets.first?.value(forKey: "owner") as? ManagedObject
                #expect(released != nil)
            }()
            #expect(released == nil)

            // A refreshed owner lets go of its targets (it is a fault again).
            let pets = try context.fetch(request)
            let pet = try #require(pets.first)
            weak let refreshed = pet.value(forKey: "owner") as? ManagedObject
            #expect(refreshed != nil)
            for other in pets { context.refresh(other, mergeChanges: false) }
            #expect(refreshed == nil)

            // reset() releases everything the context's objects held.
            weak let afterReset = try context.fetch(request).first?.value(forKey: "owner") as? ManagedObject
            #expect(afterReset != nil)
            context.reset()
            #expect(afterReset == nil)
            withExtendedLifetime(pets) {}
        }
    }
}
