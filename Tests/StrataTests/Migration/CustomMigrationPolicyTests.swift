import Foundation
import Strata
import StrataTestSupport
import Testing

/// Splits `Person.fullName` into `first`/`last` and moves the address fields into a new
/// `Address` entity, associating both destination instances with the source (Core Data's
/// `NSEntityMigrationPolicy.createDestinationInstances(forSource:in:manager:)` documentation:
/// a policy may create several destination instances and must associate them).
final class SplitPersonPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let context = manager.destinationContext else { return }
        let parts = (sInstance.value(forKey: "fullName") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
        let person = try MigrationFixture.insert("Person", ["first": parts.first ?? "", "last": parts.count > 1 ? parts[1] : ""], into: context)
        manager.associate(sourceInstance: sInstance, withDestinationInstance: person, for: mapping)
        guard let street = sInstance.value(forKey: "street") as? String else { return }
        let address = try MigrationFixture.insert("Address", ["street": street, "city": sInstance.value(forKey: "city")], into: context)
        address.setValue(person, forKey: "person")
        manager.associate(sourceInstance: sInstance, withDestinationInstance: address, for: mapping)
    }
}

/// Merges tags whose names differ only in case and drops empty ones (filtering: a policy that
/// creates nothing for a source instance drops it; Core Data's "Customizing the Migration
/// Process" in the Core Data Model Versioning and Data Migration Programming Guide).
final class MergeTagsPolicy: EntityMigrationPolicy {
    var byName: [String: ManagedObject] = [:]

    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let context = manager.destinationContext else { return }
        let name = (sInstance.value(forKey: "name") as? String ?? "").lowercased().trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return }
        let tag = try byName[name] ?? MigrationFixture.insert("Tag", ["name": name], into: context)
        byName[name] = tag
        manager.associate(sourceInstance: sInstance, withDestinationInstance: tag, for: mapping)
    }
}

@Suite("Custom migration: policies")
struct CustomMigrationPolicyTests {
    static func peopleV1() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            MigrationFixture.entity("Person", [MigrationFixture.string("fullName", optional: false), MigrationFixture.string("street"), MigrationFixture.string("city")])
        ])
    }

    static func peopleV2() -> ManagedObjectModel {
        let person = MigrationFixture.entity("Person", [MigrationFixture.string("first", optional: false), MigrationFixture.string("last", optional: false)])
        let address = MigrationFixture.entity("Address", [MigrationFixture.string("street", optional: false), MigrationFixture.string("city")])
        person.properties += [RelationshipDescription(name: "address", destination: address, inverse: "person", deleteRule: .cascade)]
        address.properties += [RelationshipDescription(name: "person", destination: person, inverse: "address", isOptional: false)]
        return ManagedObjectModel(entities: [person, address])
    }

    static func fillPeople(_ context: ManagedObjectContext) throws {
        try MigrationFixture.insert("Person", ["fullName": "Ada Lovelace", "street": "12 St James's Square", "city": "London"], into: context)
        try MigrationFixture.insert("Person", ["fullName": "Grace Brewster Hopper", "street": "Navy Yard", "city": nil], into: context)
        try MigrationFixture.insert("Person", ["fullName": "Plato"], into: context)
    }

    static func splitMapping() -> MappingModel {
        let mapping = EntityMapping(name: "PersonToPerson", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Person")
        mapping.entityMigrationPolicyClass = SplitPersonPolicy.self
        return MappingModel(entityMappings: [mapping])
    }

    /// One source instance becomes a Person and an Address; both are associated with it, so
    /// `destinationInstances(forEntityMappingName:sourceInstances:)` finds both (Core Data's
    /// NSMigrationManager documentation of that method and of `associate`).
    @Test(arguments: [0, 1, 2])
    func splitsOneEntityIntoTwo(batchSize: Int) throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let source = folder.file("v1.sqlite")
        let destination = folder.file("v2.sqlite")
        try MigrationFixture.makeStore(model: Self.peopleV1(), at: source, Self.fillPeople)
        let manager = MigrationManager(sourceModel: Self.peopleV1(), destinationModel: Self.peopleV2())
        manager.saveBatchSize = batchSize
        try manager.migrateStore(from: source, type: .sqlite, mapping: Self.splitMapping(), to: destination, type: .sqlite)

        try MigrationFixture.read(model: Self.peopleV2(), at: destination) { context in
            let people = try MigrationFixture.fetch("Person", in: context, sortedBy: "first")
            #expect(people.map { $0.value(forKey: "first") as? String } == ["Ada", "Grace", "Plato"])
            #expect(people.map { $0.value(forKey: "last") as? String } == ["Lovelace", "Brewster Hopper", ""])
            let streets = people.map { ($0.value(forKey: "address") as? ManagedObject)?.value(forKey: "street") as? String }
            #expect(streets == ["12 St James's Square", "Navy Yard", nil])
            let addresses = try MigrationFixture.fetch("Address", in: context, sortedBy: "street")
            #expect(addresses.count == 2)
            #expect(addresses.first?.value(forKey: "city") as? String == "London")
        }
        #expect(manager.sourceContext == nil && manager.destinationContext == nil)
    }

    static func tagsModel() -> ManagedObjectModel {
        let tag = MigrationFixture.entity("Tag", [MigrationFixture.string("name", optional: false)])
        let note = MigrationFixture.entity("Note", [MigrationFixture.string("title", optional: false)])
        note.properties += [RelationshipDescription(name: "tags", destination: tag, inverse: "notes", toMany: true)]
        tag.properties += [RelationshipDescription(name: "notes", destination: note, inverse: "tags", toMany: true)]
        return ManagedObjectModel(entities: [tag, note])
    }

    /// Several source instances associated with one destination instance (a merge), a source
    /// instance with none (a filter), and a `copy` mapping whose to-many relationship follows
    /// the associations to the merged instances (Core Data's default relationship expression,
    /// `destinationInstancesForEntityMappingNamed:sourceInstances:`).
    @Test(arguments: [0, 2])
    func mergesAndFiltersInstances(batchSize: Int) throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let source = folder.file("v1.sqlite")
        let destination = folder.file("v2.sqlite")
        try MigrationFixture.makeStore(model: Self.tagsModel(), at: source) { context in
            let swift = try MigrationFixture.insert("Tag", ["name": "Swift"], into: context)
            let swiftLower = try MigrationFixture.insert("Tag", ["name": "swift "], into: context)
            let empty = try MigrationFixture.insert("Tag", ["name": "  "], into: context)
            let db = try MigrationFixture.insert("Tag", ["name": "DB"], into: context)
            try MigrationFixture.insert("Note", ["title": "one", "tags": Set([swift, empty])], into: context)
            try MigrationFixture.insert("Note", ["title": "two", "tags": Set([swiftLower, db])], into: context)
        }
        let tags = EntityMapping(name: "TagToTag", mappingType: .custom, sourceEntityName: "Tag", destinationEntityName: "Tag")
        tags.entityMigrationPolicyClass = MergeTagsPolicy.self
        let notes = EntityMapping(name: "NoteToNote", mappingType: .copy, sourceEntityName: "Note", destinationEntityName: "Note")
        let manager = MigrationManager(sourceModel: Self.tagsModel(), destinationModel: Self.tagsModel())
        manager.saveBatchSize = batchSize
        try manager.migrateStore(from: source, type: .sqlite, mapping: MappingModel(entityMappings: [tags, notes]), to: destination, type: .sqlite)

        try MigrationFixture.read(model: Self.tagsModel(), at: destination) { context in
            let tags = try MigrationFixture.fetch("Tag", in: context, sortedBy: "name")
            #expect(tags.map { $0.value(forKey: "name") as? String } == ["db", "swift"])
            let notes = try MigrationFixture.fetch("Note", in: context, sortedBy: "title")
            let names = notes.map { note in
                ((note.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
            }
            #expect(names == [["swift"], ["db", "swift"]])
            #expect((tags.last?.value(forKey: "notes") as? Set<ManagedObject>)?.count == 2)
        }
    }

    /// `sourceInstances(forEntityMappingName:destinationInstances:)` answers the other way, and
    /// `nil` lists every instance of the mapping (Core Data's NSMigrationManager documentation).
    @Test func lookupsBothWays() throws {
        final class LookupPolicy: EntityMigrationPolicy {
            nonisolated(unsafe) static var seen: [String] = []
            override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
                let destinations = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil)
                let sources = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: destinations.filter { $0.entity.name == "Address" })
                Self.seen = sources.compactMap { $0.value(forKey: "fullName") as? String }.sorted()
                #expect(manager.currentEntityMapping === mapping)
            }
        }
        final class Combined: EntityMigrationPolicy {
            let split = SplitPersonPolicy()
            let lookup = LookupPolicy()
            override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
                try split.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            }
            override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
                try lookup.endInstanceCreation(forMapping: mapping, manager: manager)
            }
        }
        let folder = TemporaryDirectory(prefix: "strata-migration")
        try MigrationFixture.makeStore(model: Self.peopleV1(), at: folder.file("v1.sqlite"), Self.fillPeople)
        let mapping = Self.splitMapping()
        mapping.entityMappings[0].entityMigrationPolicyClass = Combined.self
        let manager = MigrationManager(sourceModel: Self.peopleV1(), destinationModel: Self.peopleV2())
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: mapping, to: folder.file("v2.sqlite"), type: .sqlite)
        #expect(LookupPolicy.seen == ["Ada Lovelace", "Grace Brewster Hopper"])
    }

    /// The hooks run in Core Data's order: begin, instances, endInstanceCreation for every
    /// mapping; then relationships and endRelationshipCreation; then performCustomValidation;
    /// then end (NSEntityMigrationPolicy documentation, "Customizing Stages of the Mapping
    /// Life Cycle").
    @Test func hooksRunInCoreDataOrder() throws {
        final class Recorder: EntityMigrationPolicy {
            nonisolated(unsafe) static var calls: [String] = []
            override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws { Self.calls.append("begin \(mapping.name)") }
            override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
                Self.calls.append("create \(mapping.name)")
                try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            }
            override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws { Self.calls.append("endInstances \(mapping.name)") }
            override func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
                Self.calls.append("relationships \(mapping.name)")
            }
            override func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws { Self.calls.append("endRelationships \(mapping.name)") }
            override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws { Self.calls.append("validate \(mapping.name)") }
            override func end(_ mapping: EntityMapping, manager: MigrationManager) throws { Self.calls.append("end \(mapping.name)") }
        }
        let folder = TemporaryDirectory(prefix: "strata-migration")
        try MigrationFixture.makeStore(model: Self.tagsModel(), at: folder.file("v1.sqlite")) { context in
            try MigrationFixture.insert("Tag", ["name": "a"], into: context)
            try MigrationFixture.insert("Note", ["title": "n"], into: context)
        }
        let tags = EntityMapping(name: "T", mappingType: .custom, sourceEntityName: "Tag", destinationEntityName: "Tag", attributeMappings: [MigrationFixture.map("name", "$source.name")])
        let notes = EntityMapping(name: "N", mappingType: .custom, sourceEntityName: "Note", destinationEntityName: "Note", attributeMappings: [MigrationFixture.map("title", "$source.title")])
        tags.entityMigrationPolicyClass = Recorder.self
        notes.entityMigrationPolicyClass = Recorder.self
        Recorder.calls = []
        let manager = MigrationManager(sourceModel: Self.tagsModel(), destinationModel: Self.tagsModel())
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [tags, notes]), to: folder.file("v2.sqlite"), type: .sqlite)
        #expect(
            Recorder.calls == [
                "begin T", "create T", "endInstances T", "begin N", "create N", "endInstances N",
                "relationships T", "endRelationships T", "relationships N", "endRelationships N",
                "validate T", "validate N", "end T", "end N",
            ])
    }
}
