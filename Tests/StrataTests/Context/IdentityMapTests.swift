import Foundation
import Strata
import StrataTestSupport
import Testing

/// The identity map (one object per ID per context), over its paged key tables: dense and
/// sparse primary keys, temporary numbers, sub-entity IDs and released pages.
@Suite("Identity map")
struct IdentityMapTests {
    @Test("one object per ID: temporary, permanent, sparse and out-of-range keys")
    func oneObjectPerID() throws {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let inserted = (0..<1_200).map { index -> Sample in
                let sample = Sample(context: context)
                sample.name = "s\(index)"
                return sample
            }
            for sample in inserted {
                #expect(context.object(with: sample.objectID) === sample)
                #expect(context.registeredObject(for: sample.objectID) === sample)
            }
            #expect(context.registeredObjects.count == 1_200)
            try context.save()
            for sample in inserted {
                #expect(!sample.objectID.isTemporaryID)
                #expect(context.object(with: sample.objectID) === sample)
            }
            #expect(context.registeredObjects.count == 1_200)
            let fetched = try context.fetch(FetchRequest<Sample>(entityName: "Sample"))
            #expect(Set(fetched.map(ObjectIdentifier.init)) == Set(inserted.map(ObjectIdentifier.init)))

            // Keys far outside the dense range, and negative ones, resolve to one fault each.
            let storeID = try #require(inserted[0].objectID.storeIdentifier)
            for key in ["p67108864", "p9000000000000", "p-5"] {
                let url = try #require(URL(string: "x-coredata://\(storeID)/Sample/\(key)"))
                let id = try #require(stack.coordinator.managedObjectID(forURIRepresentation: url))
                let first = context.object(with: id)
                #expect(context.object(with: id) === first)
                #expect(context.registeredObject(for: id) === first)
            }
        }
    }

    @Test("an ID of the super-entity finds the object registered under its sub-entity")
    func subentityIDs() throws {
        let stack = try TestStack(model: GraphFixtures.company())
        let context = stack.newContext()
        try context.performAndWait {
            let employee = Employee(context: context)
            employee.name = "Ada"
            try context.save()
            let storeID = try #require(employee.objectID.storeIdentifier)
            let key = employee.objectID.uriRepresentation().lastPathComponent
            let url = try #require(URL(string: "x-coredata://\(storeID)/Person/\(key)"))
            let asPerson = try #require(stack.coordinator.managedObjectID(forURIRepresentation: url))
            #expect(asPerson == employee.objectID)
            #expect(context.registeredObject(for: asPerson) === employee)
        }
    }

    @Test("objects nobody holds leave the map, and their pages with them")
    func releasedObjectsLeave() throws {
        let stack = try TestStack.samples(3_000)
        let context = stack.newContext()
        var kept: [ManagedObjectID] = []
        try context.performAndWait {
            do {
                let all = try context.fetch(FetchRequest<Sample>(entityName: "Sample"))
                #expect(context.registeredObjects.count == 3_000)
                kept = all.prefix(3).map(\.objectID)
            }
            #expect(context.registeredObjects.isEmpty)
            let again = kept.map { context.object(with: $0) }
            #expect(context.registeredObjects.count == 3)
            #expect(again.map(\.objectID) == kept)
        }
    }

    @Test("after reset the same IDs register anew, and a detached object's release leaves its successor's entry")
    func resetThenRegisterAgain() throws {
        // Core Data: reset() forgets every registered object (they must not be used again); a
        // later fetch makes new objects for the same rows.
        let stack = try TestStack.samples(3_000)
        let context = stack.newContext()
        try context.performAndWait {
            var detached = try context.fetch(FetchRequest<Sample>(entityName: "Sample"))
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            // Every 97th row: keys scattered over the pages.
            let scattered = stride(from: 0, to: detached.count, by: 97).map { detached[$0].objectID }
            let again = scattered.map { context.object(with: $0) }
            #expect(context.registeredObjects.count == scattered.count)
            detached.removeAll()  // the detached objects go; their successors stay registered
            for (id, object) in zip(scattered, again) {
                #expect(context.registeredObject(for: id) === object)
                #expect((object as? Sample)?.name.hasPrefix("s") == true)
            }
            #expect(context.registeredObjects.count == scattered.count)
        }
    }
}
