import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Object IDs hold their entity and store through one shared space (`Values/ObjectIDSpace.swift`,
/// `Values/StoreToken.swift`). Core Data's `NSManagedObjectID` is an immutable value that any
/// thread may keep after its context, coordinator and store are gone: it still names its entity
/// and store, still compares equal to every other ID of the same row, and it releases nothing it
/// should not keep.
@Suite("Object ID spaces")
struct ObjectIDSpaceTests {
    private static func idRequest() -> FetchRequest<ManagedObjectID> {
        let request = FetchRequest<ManagedObjectID>(entityName: "Person")
        request.resultType = .managedObjectIDResultType
        return request
    }

    @Test("IDs of one entity in one store share one space, however they were made", arguments: [TestStack.Kind.sqlite, .inMemory])
    func sharedSpace(kind: TestStack.Kind) throws {
        let stack = try TestStack.people(50, kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            // From rows decoded by a fetch, from a list of IDs, from a URI, from an insert's save.
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map(\.objectID)
            let listed = try context.fetch(Self.idRequest())
            #expect(fetched.count == 50)
            #expect(Set(listed) == Set(fetched))
            let person = try #require(stack.model.entitiesByName["Person"])
            let inserted = ManagedObject(entity: person, insertInto: context)
            inserted.setValue("new", forKey: "name")
            // A temporary ID's space is its entity itself.
            #expect(inserted.objectID.space === person)
            #expect(inserted.objectID.entity === person)
            try context.save()
            let fromURI = try #require(stack.coordinator.managedObjectID(forURIRepresentation: fetched[0].uriRepresentation()))
            let space = fetched[0].space
            #expect(space !== person)
            #expect(space.spaceEntity === person)
            for id in fetched + listed + [fromURI, inserted.objectID] {
                #expect(id.space === space)
                #expect(!id.isTemporaryID)
                #expect(id.entity === person)
            }
        }
    }

    @Test("IDs outlive their store: equal, equally hashed and readable; then nothing of the store stays")
    func outliveStore() throws {
        weak var token: StoreToken?
        weak var space: ObjectIDSpace?
        weak var store: IncrementalStore?
        var ids: [ManagedObjectID] = []
        var storeIdentifier: String?
        do {
            let stack = try TestStack.people(20)
            let context = stack.newContext()
            ids = try context.performAndWait { try context.fetch(Self.idRequest()) }
            token = ids.first?.store
            space = ids.first?.space
            store = stack.coordinator.persistentStores.first?.incrementalStore
            storeIdentifier = stack.coordinator.persistentStores.first?.identifier
        }
        #expect(store == nil, "the stack is gone")
        #expect(ids.count == 20)
        do {
            let first = try #require(ids.first)
            #expect(token != nil, "the IDs keep their store's token")
            #expect(first.storeIdentifier == storeIdentifier)
            #expect(first.entityName == "Person")
            #expect(first.uriRepresentation().absoluteString.hasPrefix("x-coredata://\(storeIdentifier ?? "?")/Person/p"))

            // The store is gone, so a new ID of the same row gets a space of its own; it is
            // still the same ID.
            let remade = try ids.map { ManagedObjectID(entityIdentity: $0.entityIdentity, primaryKey: try #require($0.primaryKey), store: try #require($0.store)) }
            #expect(remade.first?.space !== first.space)
            #expect(remade == ids)
            #expect(remade.map(\.hashValue) == ids.map(\.hashValue))
            #expect(Set(remade + ids).count == 20)
        }
        ids = []
        #expect(token == nil, "the store's token went with the last ID")
        #expect(space == nil, "the interned space went with the last ID")
    }

    @Test("a token interns one space per entity until it is retired")
    func retiredToken() throws {
        let person = try ModelFixtures.frozenPerson()
        let token = StoreToken(identifier: "store")
        let interned = token.space(for: person)
        #expect(token.space(for: person) === interned)
        token.retire()
        let after = token.space(for: person)
        #expect(after !== interned)
        #expect(after.entity === person && after.idStore === token)
        #expect(ManagedObjectID(space: after, primaryKey: 3) == ManagedObjectID(space: interned, primaryKey: 3))
        #expect(ManagedObjectID(space: after, primaryKey: 3) != ManagedObjectID(space: interned, primaryKey: 4))
        #expect(ManagedObjectID(space: after, primaryKey: 3) != ManagedObjectID(temporaryForEntityIdentity: person))
    }
}
