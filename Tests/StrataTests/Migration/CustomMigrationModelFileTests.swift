import Foundation
import Strata
import StrataTestSupport
import Testing

/// Turns version 3's `Attachment` into version 4's `ImageAttachment`, filling the new caption
/// and size from the note and the image (what UnCloudNotes' own v3 → v4 policy does).
final class AttachmentToImageAttachmentPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
        for attachment in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]) {
            let image = sInstance.value(forKey: "image") as? Data ?? Data()
            attachment.setValue(Float(image.count), forKey: "width")
            attachment.setValue(Float(1), forKey: "height")
            let title = (sInstance.value(forKey: "note") as? ManagedObject)?.value(forKey: "title") as? String
            attachment.setValue("Image for \(title ?? "a note")", forKey: "caption")
            if attachment.value(forKey: "dateCreated") == nil { attachment.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "dateCreated") }
        }
    }
}

/// UnCloudNotes, the custom-migration tutorial app of the model corpus, migrated through its
/// versions as its own mapping models do: v2 → v3 moves `Note.image` into a new `Attachment`
/// entity with a filter predicate and the `$manager` lookup for the relationship (Core Data's
/// default relationship expression), v3 → v4 turns `Attachment` into the sub-entity
/// `ImageAttachment` with a policy. The models are read from ../shared/testdata/xcdatamodels.
@Suite("Custom migration: UnCloudNotes model versions")
struct CustomMigrationModelFileTests {
    static func version(_ name: String) throws -> ManagedObjectModel {
        ModelFileCorpus.registerTransformers()
        return try ManagedObjectModel(contentsOf: ModelFileCorpus.url("UnCloudNotes/UnCloudNotesDataModel.xcdatamodeld/\(name).xcdatamodel"))
    }

    static func v2ToV3() -> MappingModel {
        let notes = EntityMapping(
            name: "NoteToNote", mappingType: .transform, sourceEntityName: "Note", destinationEntityName: "Note",
            attributeMappings: ["body", "dateCreated", "displayIndex", "title"].map { PropertyMapping.copying($0, into: $0) })
        let attachments = EntityMapping(
            name: "NoteToAttachment", mappingType: .custom, sourceEntityName: "Note", destinationEntityName: "Attachment",
            attributeMappings: [PropertyMapping.copying("dateCreated", into: "dateCreated"), PropertyMapping.copying("image", into: "image")],
            relationshipMappings: [MigrationFixture.map("note", "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"NoteToNote\", $source)")])
        attachments.sourceInstancesPredicate = ObjectPredicate(format: "image != nil")
        return MappingModel(entityMappings: [notes, attachments])
    }

    static func v3ToV4() -> MappingModel {
        let notes = EntityMapping(name: "NoteToNote", mappingType: .copy, sourceEntityName: "Note", destinationEntityName: "Note")
        let attachments = EntityMapping(
            name: "AttachmentToImageAttachment", mappingType: .custom, sourceEntityName: "Attachment", destinationEntityName: "ImageAttachment",
            attributeMappings: [PropertyMapping.copying("dateCreated", into: "dateCreated"), PropertyMapping.copying("image", into: "image")],
            relationshipMappings: [MigrationFixture.map("note", "$source.note")])
        attachments.entityMigrationPolicyClass = AttachmentToImageAttachmentPolicy.self
        return MappingModel(entityMappings: [notes, attachments])
    }

    @Test func version2To3To4() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v2 = try Self.version("UnCloudNotesDataModel_v2")
        let v3 = try Self.version("UnCloudNotesDataModel_v3")
        let v4 = try Self.version("UnCloudNotesDataModel_v4")
        try MigrationFixture.makeStore(model: v2, at: folder.file("v2.sqlite")) { context in
            let created = Date(timeIntervalSinceReferenceDate: 700_000_000)
            try MigrationFixture.insert("Note", ["title": "plain", "body": "no image", "displayIndex": Int64(0), "dateCreated": created], into: context)
            try MigrationFixture.insert("Note", ["title": "cat", "body": "a cat", "displayIndex": Int64(1), "image": Data([1, 2, 3]), "dateCreated": created], into: context)
            try MigrationFixture.insert("Note", ["title": "dog", "body": "a dog", "displayIndex": Int64(2), "image": Data([4, 5])], into: context)
        }
        try MigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(
            from: folder.file("v2.sqlite"), type: .sqlite, mapping: Self.v2ToV3(), to: folder.file("v3.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: v3, at: folder.file("v3.sqlite")) { context in
            let notes = try MigrationFixture.fetch("Note", in: context, sortedBy: "displayIndex")
            #expect(notes.map { $0.value(forKey: "title") as? String } == ["plain", "cat", "dog"])
            #expect(notes.map { ($0.value(forKey: "attachments") as? Set<ManagedObject>)?.count } == [0, 1, 1])
            let attachments = try MigrationFixture.fetch("Attachment", in: context)
            #expect(Set(attachments.compactMap { $0.value(forKey: "image") as? Data }) == [Data([1, 2, 3]), Data([4, 5])])
            let cat = attachments.first { ($0.value(forKey: "image") as? Data) == Data([1, 2, 3]) }
            #expect((cat?.value(forKey: "note") as? ManagedObject)?.value(forKey: "title") as? String == "cat")
            #expect(cat?.value(forKey: "dateCreated") as? Date == Date(timeIntervalSinceReferenceDate: 700_000_000))
        }

        try MigrationManager(sourceModel: v3, destinationModel: v4).migrateStore(
            from: folder.file("v3.sqlite"), type: .sqlite, mapping: Self.v3ToV4(), to: folder.file("v4.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: v4, at: folder.file("v4.sqlite")) { context in
            let all = try MigrationFixture.fetch("Attachment", in: context)
            #expect(all.map(\.entity.name) == ["ImageAttachment", "ImageAttachment"])
            let attachments = try MigrationFixture.fetch("ImageAttachment", in: context, sortedBy: "caption")
            #expect(attachments.map { $0.value(forKey: "caption") as? String } == ["Image for cat", "Image for dog"])
            #expect(attachments.map { $0.value(forKey: "width") as? Float } == [3, 2])
            let notes = try MigrationFixture.fetch("Note", in: context, sortedBy: "displayIndex")
            #expect(notes.map { ($0.value(forKey: "attachments") as? Set<ManagedObject>)?.count } == [0, 1, 1])
            #expect(notes.map { $0.value(forKey: "body") as? String } == ["no image", "a cat", "a dog"])
        }
    }
}
