import Foundation
import Strata
import StrataTestSupport
import Testing

/// Optimistic locking and Core Data's merge policies, each against its documented semantics.
@Suite("Conflicts and merge policies")
struct MergePolicyTests {
    /// Accounts with a name, a balance, a note and an owner (a to-one), for conflict scenarios.
    static func model() -> ManagedObjectModel {
        let account = EntityDescription(name: "Account")
        let owner = EntityDescription(name: "Owner")
        let unique = EntityDescription(name: "Tag")
        account.properties = [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "balance", type: .integer64, isOptional: false, defaultValue: 0),
            AttributeDescription(name: "note", type: .string),
            RelationshipDescription(name: "owner", destination: owner, inverse: "accounts"),
        ]
        owner.properties = [
            AttributeDescription(name: "name", type: .string),
            RelationshipDescription(name: "accounts", destination: account, inverse: "owner", toMany: true),
        ]
        unique.properties = [
            AttributeDescription(name: "code", type: .string),
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "weight", type: .integer64, isOptional: false, defaultValue: 0),
        ]
        unique.uniquenessConstraints = [["code"]]
        return ManagedObjectModel(entities: [account, owner, unique])
    }

    struct Scenario {
        let stack: TestStack
        let id: ManagedObjectID
        let owners: [ManagedObjectID]
    }

    /// One account read by context A, then changed and saved by context B behind A's back.
    func scenario(_ kind: TestStack.Kind = .sqlite) throws -> (Scenario, ManagedObjectContext) {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let setup = stack.newContext()
        let (id, owners): (ManagedObjectID, [ManagedObjectID]) = try setup.performAndWait {
            let model = stack.model
            let first = ManagedObject(entity: try #require(model.entitiesByName["Owner"]), insertInto: setup)
            first.setValue("first", forKey: "name")
            let second = ManagedObject(entity: try #require(model.entitiesByName["Owner"]), insertInto: setup)
            second.setValue("second", forKey: "name")
            let account = ManagedObject(entity: try #require(model.entitiesByName["Account"]), insertInto: setup)
            account.setValue("original", forKey: "name")
            account.setValue(100, forKey: "balance")
            account.setValue("n0", forKey: "note")
            account.setValue(first, forKey: "owner")
            try setup.save()
            return (account.objectID, [first.objectID, second.objectID])
        }
        let a = stack.newContext(name: "A")
        a.retainsRegisteredObjects = true  // A keeps the object it read (and the version it read)
        a.performAndWait { _ = a.object(with: id).value(forKey: "name") }
        let b = stack.newContext(name: "B")
        try b.performAndWait {
            let account = b.object(with: id)
            account.setValue("store name", forKey: "name")
            account.setValue(200, forKey: "balance")
            try b.save()
        }
        return (Scenario(stack: stack, id: id, owners: owners), a)
    }

    func stored(_ scenario: Scenario) -> [String: Any] {
        let check = scenario.stack.newContext()
        check.stalenessInterval = 0
        return check.performAndWait {
            let object = check.object(with: scenario.id)
            var result: [String: Any] = [:]
            for key in ["name", "balance", "note"] { result[key] = object.value(forKey: key) ?? NSNull() }
            result["owner"] = (object.value(forKey: "owner") as? ManagedObject)?.objectID
            return result
        }
    }

    @Test(".error: the save fails with 133020 listing cached, persisted and object snapshots", arguments: TestStack.Kind.allCases)
    func errorPolicy(kind: TestStack.Kind) throws {
        let (scenario, a) = try scenario(kind)
        try a.performAndWait {
            a.object(with: scenario.id).setValue("mine", forKey: "name")
            let error = try #require(throws: StrataError.self) { try a.save() }
            #expect(error.code == StrataError.Code.managedObjectMerge)
            let conflict = try #require(error.conflicts.first)
            #expect(conflict.objectID == scenario.id)
            #expect(conflict.oldVersionNumber == 1)
            #expect(conflict.newVersionNumber == 2)
            #expect(conflict.cachedSnapshot["name"] == "original")
            #expect(conflict.persistedSnapshot?["name"] == "store name")
            #expect(conflict.objectSnapshot["name"] == "mine")
            #expect(a.hasChanges)
        }
        #expect(stored(scenario)["name"] as? String == "store name")
    }

    @Test("mergeByPropertyStoreTrump: store values win where both changed; my other changes stay")
    func storeTrump() throws {
        let (scenario, a) = try scenario()
        a.mergePolicy = .mergeByPropertyStoreTrump
        try a.performAndWait {
            let account = a.object(with: scenario.id)
            account.setValue("mine", forKey: "name")  // also changed by B
            account.setValue("my note", forKey: "note")  // only changed here
            account.setValue(a.object(with: scenario.owners[1]), forKey: "owner")
            try a.save()
        }
        let values = stored(scenario)
        #expect(values["name"] as? String == "store name")
        #expect(values["balance"] as? Int64 == 200)
        #expect(values["note"] as? String == "my note")
        #expect(values["owner"] as? ManagedObjectID == scenario.owners[1])
    }

    @Test("mergeByPropertyObjectTrump: my values win where both changed; the store's other changes stay")
    func objectTrump() throws {
        let (scenario, a) = try scenario()
        a.mergePolicy = .mergeByPropertyObjectTrump
        try a.performAndWait {
            let account = a.object(with: scenario.id)
            account.setValue("mine", forKey: "name")
            account.setValue("my note", forKey: "note")
            try a.save()
        }
        let values = stored(scenario)
        #expect(values["name"] as? String == "mine")
        #expect(values["balance"] as? Int64 == 200)
        #expect(values["note"] as? String == "my note")
    }

    @Test("overwrite: my whole object replaces the store's row")
    func overwrite() throws {
        let (scenario, a) = try scenario()
        a.mergePolicy = .overwrite
        try a.performAndWait {
            a.object(with: scenario.id).setValue("mine", forKey: "name")
            try a.save()
        }
        let values = stored(scenario)
        #expect(values["name"] as? String == "mine")
        #expect(values["balance"] as? Int64 == 100)  // B's change is overwritten by my (unchanged) value
    }

    @Test("rollback: my changes to the conflicting object are dropped for the store's state")
    func rollback() throws {
        let (scenario, a) = try scenario()
        a.mergePolicy = .rollback
        try a.performAndWait {
            let account = a.object(with: scenario.id)
            account.setValue("mine", forKey: "name")
            account.setValue("my note", forKey: "note")
            try a.save()
            #expect(account.value(forKey: "name") as? String == "store name")
            #expect(!a.hasChanges)
        }
        let values = stored(scenario)
        #expect(values["name"] as? String == "store name")
        #expect(values["note"] as? String == "n0")
    }

    @Test("deletes: a delete of a row changed elsewhere", arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
    func deleteConflict(policy: MergePolicy) throws {
        let (scenario, a) = try scenario()
        a.mergePolicy = policy
        try a.performAndWait {
            a.delete(a.object(with: scenario.id))
            if policy == .error {
                #expect(throws: StrataError.self) { try a.save() }
            } else {
                try a.save()
            }
        }
        let check = scenario.stack.newContext()
        let exists = check.performAndWait { (try? check.existingObject(with: scenario.id)) != nil }
        switch policy.kind {
        case .mergeByPropertyObjectTrump, .overwrite: #expect(!exists)
        default: #expect(exists)
        }
    }

    @Test("uniqueness constraints: a duplicate fails under .error; the trump policies merge into the existing row", arguments: TestStack.Kind.allCases)
    func uniqueness(kind: TestStack.Kind) throws {
        let stack = try TestStack(model: Self.model(), kind: kind)
        let entity = try #require(stack.model.entitiesByName["Tag"])
        let first = stack.newContext()
        let existingID: ManagedObjectID = try first.performAndWait {
            let tag = ManagedObject(entity: entity, insertInto: first)
            tag.setValue("A", forKey: "code")
            tag.setValue("first", forKey: "label")
            tag.setValue(1, forKey: "weight")
            try first.save()
            return tag.objectID
        }
        let strict = stack.newContext()
        try strict.performAndWait {
            let duplicate = ManagedObject(entity: entity, insertInto: strict)
            duplicate.setValue("A", forKey: "code")
            let error = try #require(throws: StrataError.self) { try strict.save() }
            #expect(error.code == StrataError.Code.managedObjectConstraintMerge)
            #expect(error.conflicts.first?.conflictingObjectID == existingID)
            #expect(error.conflicts.first?.constraint == ["code"])
        }
        let objectWins = stack.newContext()
        objectWins.mergePolicy = .mergeByPropertyObjectTrump
        try objectWins.performAndWait {
            let duplicate = ManagedObject(entity: entity, insertInto: objectWins)
            duplicate.setValue("A", forKey: "code")
            duplicate.setValue("second", forKey: "label")
            try objectWins.save()
            #expect(duplicate.objectID == existingID)
        }
        let storeWins = stack.newContext()
        storeWins.mergePolicy = .mergeByPropertyStoreTrump
        try storeWins.performAndWait {
            let duplicate = ManagedObject(entity: entity, insertInto: storeWins)
            duplicate.setValue("A", forKey: "code")
            duplicate.setValue("third", forKey: "label")
            try storeWins.save()
            #expect(duplicate.objectID == existingID)
            #expect(duplicate.value(forKey: "label") as? String == "second")
        }
        let check = stack.newContext()
        try check.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Tag")
            let tags = try check.fetch(request)
            #expect(tags.count == 1)
            #expect(tags.first?.value(forKey: "label") as? String == "second")
        }
    }
}
