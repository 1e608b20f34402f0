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

    @Test("a repeated to-one target after a nil one, and owners that already hold an earlier step's targets")
    func repeatedTargetsAcrossNilAndSecondKeyPath() throws {
        // Core Data resolves every owner's to-one to its one registered object, whatever the
        // order of the owners. The step knows a repeat of its last target without copying the
        // ID (`Context/ManagedObjectContext+Prefetch.swift`); a nil target in between must not
        // break that, and owners holding the first key path's targets keep the second's in
        // their own list.
        let model = ModelFixtures.ownersAndPets()
        let stack = try TestStack(model: model)
        let seed = stack.newContext()
        try seed.performAndWait {
            let ownerEntity = try #require(model.entitiesByName["Owner"])
            let petEntity = try #require(model.entitiesByName["Pet"])
            let owners = ["A", "B"].map { name -> ManagedObject in
                let owner = ManagedObject(entity: ownerEntity, insertInto: seed)
                owner.setValue(name, forKey: "name")
                return owner
            }
            for (name, owner) in [("p1", 0), ("p2", 0), ("p3", nil), ("p4", 0), ("p5", 1), ("p6", 1)] as [(String, Int?)] {
                let pet = ManagedObject(entity: petEntity, insertInto: seed)
                pet.setValue(name, forKey: "name")
                pet.setValue(owner.map { owners[$0] }, forKey: "owner")
            }
            try seed.save()
        }
        let recorder = stack.recordSQL()
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            request.relationshipKeyPathsForPrefetching = ["owner", "owner.pets"]
            let pets = try context.fetch(request)
            #expect(pets.count == 6)
            let statements = recorder.statements {
                let owners = pets.map { $0.value(forKey: "owner") as? ManagedObject }
                #expect(owners.map { $0?.value(forKey: "name") as? String } == ["A", "A", nil, "A", "B", "B"])
                #expect(owners[0] === owners[1] && owners[1] === owners[3])
                #expect(owners[4] === owners[5] && owners[0] !== owners[4])
                #expect((owners[0]?.value(forKey: "pets") as? Set<ManagedObject>)?.count == 3)
                #expect((owners[4]?.value(forKey: "pets") as? Set<ManagedObject>)?.count == 2)
            }
            #expect(SQLRecorder.selects(statements).isEmpty, "\(statements)")
        }
        // An owner whose to-one was set in memory (unsaved: its targets are its own, no longer
        // the row's) is told a repeat the same way.
        let edited = stack.newContext()
        try edited.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Pet")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name")]
            let unprefetched = try edited.fetch(request)
            unprefetched[2].setValue(unprefetched[0].value(forKey: "owner"), forKey: "owner")
            request.relationshipKeyPathsForPrefetching = ["owner"]
            let owners = try edited.fetch(request).map { $0.value(forKey: "owner") as? ManagedObject }
            #expect(owners.map { $0?.value(forKey: "name") as? String } == ["A", "A", "A", "A", "B", "B"])
            #expect(owners[0] === owners[2] && owners[2] === owners[3])
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
