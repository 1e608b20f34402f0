import Foundation
import Strata
import StrataTestSupport
import Testing

/// Entities moving into and out of an inheritance tree, and migrations that fail. Core Data's
/// "Lightweight Migration" guide lists changing the entity hierarchy (adding a parent entity,
/// moving an entity under or out of one) among the inferred changes; in SQLite, Core Data keeps
/// a whole tree in its root's table, so the moved entity's rows change tables. A migration that
/// fails leaves the store as it was (Core Data migrates in a transaction, or a copy).
@Suite("Migration: inheritance changes and failures")
struct InheritanceMigrationTests {
    static let separate = """
        <entity name="Animal">
            <attribute name="name" attributeType="String"/>
        </entity>
        <entity name="Dog">
            <attribute name="name" attributeType="String"/>
            <attribute name="barks" attributeType="Boolean" defaultValueString="YES"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="dogs" inverseEntity="Owner"/>
        </entity>
        <entity name="Owner">
            <attribute name="name" attributeType="String"/>
            <relationship name="dogs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Dog" inverseName="owner" inverseEntity="Dog"/>
            <relationship name="favourite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Dog"/>
        </entity>
        """

    static let tree = """
        <entity name="Animal">
            <attribute name="name" attributeType="String"/>
        </entity>
        <entity name="Dog" parentEntity="Animal">
            <attribute name="barks" attributeType="Boolean" defaultValueString="YES"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Owner" inverseName="dogs" inverseEntity="Owner"/>
        </entity>
        <entity name="Owner">
            <attribute name="name" attributeType="String"/>
            <relationship name="dogs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Dog" inverseName="owner" inverseEntity="Dog"/>
            <relationship name="favourite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Dog"/>
        </entity>
        """

    /// Two animals, three dogs (keys 1…3 in both tables before the move), two owners.
    static func seed(_ model: ManagedObjectModel, at url: URL) throws {
        try MigrationHarness.with(model, at: url) { context in
            for name in ["cat", "cow"] {
                let animal = try EntityDescription.insertNewObject(forEntityName: "Animal", into: context)
                animal.setValue(name, forKey: "name")
            }
            var dogs: [ManagedObject] = []
            for name in ["rex", "fido", "odie"] {
                let dog = try EntityDescription.insertNewObject(forEntityName: "Dog", into: context)
                dog.setValue(name, forKey: "name")
                dog.setValue(name != "odie", forKey: "barks")
                dogs.append(dog)
            }
            for (name, owned, favourite) in [("jon", [dogs[2], dogs[1]], dogs[2]), ("ann", [dogs[0]], dogs[0])] {
                let owner = try EntityDescription.insertNewObject(forEntityName: "Owner", into: context)
                owner.setValue(name, forKey: "name")
                owner.mutableSetValue(forKey: "dogs").addObjects(from: owned)
                owner.setValue(favourite, forKey: "favourite")
            }
            try context.save()
        }
    }

    static func check(_ model: ManagedObjectModel, at url: URL, dogsAreAnimals: Bool) throws {
        try MigrationHarness.with(model, at: url, options: MigrationHarness.automatic) { context in
            let dogs = try MigrationHarness.objects("Dog", in: context, sortedBy: "name")
            #expect(dogs.map { $0.value(forKey: "name") as? String } == ["fido", "odie", "rex"])
            #expect(dogs.map { $0.value(forKey: "barks") as? Bool } == [true, false, true])
            #expect(dogs.map { ($0.value(forKey: "owner") as? ManagedObject)?.value(forKey: "name") as? String } == ["jon", "jon", "ann"])
            let animals = try MigrationHarness.objects("Animal", in: context, sortedBy: "name")
            #expect(animals.count == (dogsAreAnimals ? 5 : 2))
            let owners = try MigrationHarness.objects("Owner", in: context, sortedBy: "name")
            #expect(owners.map { MigrationHarness.names($0, "dogs", "name") } == [["rex"], ["fido", "odie"]])
            #expect(owners.map { MigrationHarness.names($0, "favourite", "name") } == [["rex"], ["odie"]])
            // New rows get keys no migrated row has.
            let dog = try EntityDescription.insertNewObject(forEntityName: "Dog", into: context)
            dog.setValue("new", forKey: "name")
            let animal = try EntityDescription.insertNewObject(forEntityName: "Animal", into: context)
            animal.setValue("newt", forKey: "name")
            try context.save()
            let all = try MigrationHarness.objects("Animal", in: context) + (dogsAreAnimals ? [] : MigrationHarness.objects("Dog", in: context))
            #expect(Set(all.map(\.objectID)).count == all.count)
            #expect(try MigrationHarness.objects("Dog", in: context).count == 4)
        }
    }

    @Test("an entity moved under a parent: its rows join the parent's table with new keys, and every reference follows")
    func intoTree() throws {
        let scratch = ModelFileScratch()
        let before = try MigrationHarness.model(Self.separate, scratch: scratch, name: "Separate")
        let after = try MigrationHarness.model(Self.tree, scratch: scratch, name: "Tree")
        let url = scratch.directory.file("into.sqlite")
        try Self.seed(before, at: url)
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [before]]) { a, _ in a }
        try MigrationHarness.with(after, at: url, options: options) { _ in }
        try Self.check(after, at: url, dogsAreAnimals: true)
    }

    @Test("an entity moved out of its parent: its rows move to a table of their own")
    func outOfTree() throws {
        let scratch = ModelFileScratch()
        let before = try MigrationHarness.model(Self.tree, scratch: scratch, name: "Tree")
        let after = try MigrationHarness.model(Self.separate, scratch: scratch, name: "Separate")
        let url = scratch.directory.file("out.sqlite")
        try Self.seed(before, at: url)
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [before]]) { a, _ in a }
        try MigrationHarness.with(after, at: url, options: options) { _ in }
        try Self.check(after, at: url, dogsAreAnimals: false)
    }

    @Test("a migration that fails part-way (a new uniqueness constraint the data breaks) leaves the store unchanged and usable")
    func failureRollsBack() throws {
        let scratch = ModelFileScratch()
        let before = try MigrationHarness.model(Self.separate, scratch: scratch, name: "Separate")
        let constrained = Self.separate.replacingOccurrences(
            of: #"<attribute name="barks" attributeType="Boolean" defaultValueString="YES"/>"#,
            with:
                #"<attribute name="barks" attributeType="Boolean" defaultValueString="YES"/><attribute name="tag" optional="YES" attributeType="Integer 32" defaultValueString="0"/><uniquenessConstraints><uniquenessConstraint><constraint value="barks"/></uniquenessConstraint></uniquenessConstraints>"#
        )
        let after = try MigrationHarness.model(constrained, scratch: scratch, name: "Constrained")
        let url = scratch.directory.file("fail.sqlite")
        try Self.seed(before, at: url)
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [before]]) { a, _ in a }
        let error = #expect(throws: StrataError.self) { try MigrationHarness.coordinator(after, at: url, options: options) }
        #expect(error?.code == StrataError.Code.migration)
        #expect(error?.message.contains("unchanged") == true)
        // The checkpoint moved the WAL into the file; the rolled-back transaction changed nothing.
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect(before.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        try MigrationHarness.with(before, at: url) { context throws in
            #expect(try MigrationHarness.objects("Dog", in: context).count == 3)
            #expect(try MigrationHarness.objects("Owner", in: context, sortedBy: "name").map { MigrationHarness.names($0, "dogs", "name") } == [["rex"], ["fido", "odie"]])
        }
    }
}
