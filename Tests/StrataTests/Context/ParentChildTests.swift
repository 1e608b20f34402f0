import Foundation
import Strata
import StrataTestSupport
import Testing

@Suite("Parent and child contexts")
struct ParentChildTests {
    func person(_ context: ManagedObjectContext, _ name: String, age: Int = 30) throws -> ManagedObject {
        let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Person"])
        let person = ManagedObject(entity: entity, insertInto: context)
        person.setValue(name, forKey: "name")
        person.setValue(age, forKey: "age")
        return person
    }

    func storeCount(_ stack: TestStack) throws -> Int {
        let reader = stack.newContext()
        return try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
    }

    @Test("a child's save goes into its parent only; the root's save reaches the store", arguments: TestStack.Kind.allCases)
    func savesGoUp(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: ModelFixtures.people(), kind: kind)
        let root = stack.newContext(name: "root")
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        let grandchild = ManagedObjectContext(concurrencyType: .privateQueue)
        grandchild.parent = child
        let id: ManagedObjectID = try grandchild.performAndWait {
            let ann = try person(grandchild, "Ann")
            try grandchild.save()
            return ann.objectID
        }
        #expect(id.isTemporaryID)
        #expect(try storeCount(stack) == 0)
        try child.performAndWait {
            #expect(child.hasChanges)
            #expect((child.object(with: id).value(forKey: "name") as? String) == "Ann")
            try child.save()
        }
        #expect(try storeCount(stack) == 0)
        try root.performAndWait {
            let ann = root.object(with: id)
            #expect(ann.isInserted)
            try root.save()
            #expect(!ann.objectID.isTemporaryID)
        }
        #expect(try storeCount(stack) == 1)
        // Every context of the tree resolves the permanent ID to its object.
        let permanent: ManagedObjectID = try root.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Person")
            request.resultType = .managedObjectIDResultType
            return try #require(try root.fetch(request).first)
        }
        grandchild.performAndWait {
            let object = grandchild.object(with: permanent)
            #expect(object.value(forKey: "name") as? String == "Ann")
            #expect(grandchild.object(with: id) === object)
        }
    }

    @Test("children fetch through their parent and see its unsaved changes")
    func childSeesParentChanges() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let root = stack.newContext()
        try root.performAndWait {
            _ = try person(root, "saved", age: 10)
            try root.save()
            _ = try person(root, "unsaved", age: 20)
            let saved = try #require(
                try root.fetch(
                    { () -> FetchRequest<ManagedObject> in
                        let r = FetchRequest<ManagedObject>(entityName: "Person")
                        r.predicate = ObjectPredicate(format: "name == 'saved'")
                        return r
                    }()
                ).first)
            saved.setValue(11, forKey: "age")
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        try child.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "age")]
            let people = try child.fetch(request)
            #expect(people.compactMap { $0.value(forKey: "name") as? String } == ["saved", "unsaved"])
            #expect(people.compactMap { $0.value(forKey: "age") as? Int64 } == [11, 20])
            #expect(try child.count(for: request) == 2)
            // An edit in the child stays in the child until it saves.
            people[0].setValue(12, forKey: "age")
        }
        try root.performAndWait {
            let saved = try #require(root.registeredObjects.first { $0.value(forKey: "name") as? String == "saved" })
            #expect(saved.value(forKey: "age") as? Int64 == 11)
        }
        try child.performAndWait { try child.save() }
        try root.performAndWait {
            let saved = try #require(root.registeredObjects.first { $0.value(forKey: "name") as? String == "saved" })
            #expect(saved.value(forKey: "age") as? Int64 == 12)
        }
    }

    @Test("obtainPermanentIDs gives objects their final IDs before the save")
    func permanentIDsEarly() throws {
        let stack = try TestStack(model: ModelFixtures.people())
        let context = stack.newContext()
        try context.performAndWait {
            let ann = try person(context, "Ann")
            try context.obtainPermanentIDs(for: [ann])
            let early = ann.objectID
            #expect(!early.isTemporaryID)
            try context.save()
            #expect(ann.objectID == early)
        }
    }
}

@Suite("Parent and child contexts: relationships")
struct ParentChildRelationshipTests {
    @Test("a child reads the to-many of an object its parent inserted and has not saved")
    func childReadsParentInsertedToMany() throws {
        let stack = try TestStack(model: ModelFixtures.ownersAndPets())
        let root = stack.newContext()
        let ownerID: ManagedObjectID = try root.performAndWait {
            let owner = ManagedObject(entity: try #require(stack.model.entitiesByName["Owner"]), insertInto: root)
            owner.setValue("unsaved owner", forKey: "name")
            for index in 0..<3 {
                let pet = ManagedObject(entity: try #require(stack.model.entitiesByName["Pet"]), insertInto: root)
                pet.setValue("pet \(index)", forKey: "name")
                pet.setValue(owner, forKey: "owner")
            }
            return owner.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = root
        child.performAndWait {
            let owner = child.object(with: ownerID)
            let pets = owner.value(forKey: "pets") as? Set<ManagedObject> ?? []
            #expect(pets.count == 3)
            #expect(Set(pets.compactMap { $0.value(forKey: "name") as? String }) == ["pet 0", "pet 1", "pet 2"])
        }
    }
}
