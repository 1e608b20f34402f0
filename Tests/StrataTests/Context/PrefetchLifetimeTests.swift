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
    /// 4 owners with 5 pets each, saved; the writer's objects are released.
    func ownersAndPets() throws -> TestStack {
        let stack = try TestStack(model: PrefetchModel.make())
        let context = stack.newContext()
        try context.performAndWait {
            let ownerEntity = try #require(stack.model.entitiesByName["Owner"])
            let petEntity = try #require(stack.model.entitiesByName["Pet"])
            let owners = (0..<4).map { index -> ManagedObject in
                let owner = ManagedObject(entity: ownerEntity, insertInto: context)
                owner.setValue("owner \(index)", forKey: "name")
                return owner
            }
            for index in 0..<20 {
                let pet = ManagedObject(entity: petEntity, insertInto: context)
                pet.setValue("pet \(index)", forKey: "name")
                pet.setValue(owners[index % owners.count], forKey: "owner")
            }
            try context.save()
            context.reset()
        }
        return stack
    }

    func selects(_ statements: [String]) -> [String] { statements.filter { $0.hasPrefix("SELECT") } }

    @Test("one surviving owner keeps its prefetched to-one target: it fires without a query")
    func survivingOwnerKeepsItsTarget() throws {
        let stack = try ownersAndPets()
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
            #expect(selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("prefetched to-many members stay loaded while their owner lives")
    func toManyMembersStayLoaded() throws {
        let stack = try ownersAndPets()
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
            #expect(selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("an owner prefetched by two key paths holds the targets of both")
    func twoKeyPathsOnOneOwner() throws {
        let stack = try ownersAndPets()
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
            #expect(selects(statements).isEmpty, "\(statements)")
        }
    }

    @Test("targets are released with their owners, and by refresh and reset")
    func targetsAreReleased() throws {
        let stack = try ownersAndPets()
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
