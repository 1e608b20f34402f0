import Foundation
import Strata
import StrataTestSupport
import Testing

/// Real versioned models migrated from every version to the current one. Core Data's
/// "Lightweight Migration" guide: a store of any earlier version migrates straight to the
/// current model when a mapping can be inferred between the two (no chain of steps); the
/// source model is the version, among the bundle's, whose version hashes match the store's.
@Suite("Migration: real versioned models, every version to the latest")
struct CorpusMigrationTests {
    // Moody (objc.io): v1→v2 renames Mood.remoteIdentifier → remoteID (elementID) and adds the
    // required rating with a default; v3 adds Continent.moods ⇄ Mood.continent; v4 moves
    // Continent and Country out of the abstract GeographicRegion (rows change tables); v5 removes
    // Continent and adds Country.isoContinent; v6 brings Continent back as a new entity.
    static let moody = ModelFileCorpus.url("core-data/Moody.xcdatamodeld")
    // Notes (strata-samples): v2 renames body → text (elementID) and adds the required pinned
    // with a default; v3 makes text required with a default, adds Attachment, and turns
    // Note.folder (to-one) into Note.folders (to-many, elementID) ⇄ Folder.notes; v4 removes
    // Note.attachmentData/attachmentName (the "split" into Attachment is not inferable: the old
    // attachment values are dropped, as Core Data's lightweight migration drops them).
    static let notes = ModelFileCorpus.url("strata-samples/Notes.xcdatamodeld")

    @Test("Moody: each of the six versions migrates to Moody 6 with its data", arguments: ModelFileCorpus.versions(of: moody))
    func moodyWalk(_ version: URL) throws {
        ModelFileCorpus.registerTransformers()
        let latest = try ManagedObjectModel(contentsOf: Self.moody)
        try VersionWalk.walk(from: version, to: latest, in: TemporaryDirectory(prefix: "strata-moody"))
    }

    @Test("Notes: each of the four versions migrates to Notes 4 with its data", arguments: ModelFileCorpus.versions(of: notes))
    func notesWalk(_ version: URL) throws {
        let latest = try ManagedObjectModel(contentsOf: Self.notes)
        try VersionWalk.walk(from: version, to: latest, in: TemporaryDirectory(prefix: "strata-notes"))
    }

    /// A bundle's versions in version order ("Moody", "Moody 2", …, "Moody 6").
    static func ordered(_ bundle: URL) -> [URL] {
        ModelFileCorpus.versions(of: bundle).sorted { a, b in
            func number(_ url: URL) -> Int { Int(url.deletingPathExtension().lastPathComponent.split(separator: " ").last ?? "") ?? 1 }
            return number(a) < number(b)
        }
    }

    @Test("Moody and Notes: every step between consecutive versions is inferred, with the expected mapping types")
    func steps() throws {
        ModelFileCorpus.registerTransformers()
        let moody = try Self.ordered(Self.moody).map { try ManagedObjectModel(contentsOf: $0) }
        let types = try zip(moody, moody.dropFirst()).map { pair -> [String: EntityMappingType] in
            let mapping = try MappingModel.inferredMappingModel(forSourceModel: pair.0, destinationModel: pair.1)
            return Dictionary(uniqueKeysWithValues: mapping.entityMappings.map { ($0.destinationEntityName ?? $0.sourceEntityName ?? "?", $0.mappingType) })
        }
        #expect(types[0]["Mood"] == .transform && types[0]["Country"] == .copy)
        #expect(types[2]["GeographicRegion"] == .remove && types[2]["Continent"] == .transform)
        #expect(types[3]["Continent"] == .remove)
        #expect(types[4]["Continent"] == .add)
        let notes = try Self.ordered(Self.notes).map { try ManagedObjectModel(contentsOf: $0) }
        let v1ToV2 = try MappingModel.inferredMappingModel(forSourceModel: notes[0], destinationModel: notes[1])
        #expect(v1ToV2.entityMappingsByName["NoteToNote"]?.attributeMapping(named: "text")?.sourcePropertyName == "body")
        let v2ToV3 = try MappingModel.inferredMappingModel(forSourceModel: notes[1], destinationModel: notes[2])
        #expect(v2ToV3.entityMappingsByName["NoteToNote"]?.relationshipMapping(named: "folders")?.sourcePropertyName == "folder")
        #expect(v2ToV3.entityMappingsByName["AddAttachment"]?.mappingType == .add)
    }

    @Test("Notes 1 → Notes 4: body becomes text (default where missing), pinned defaults to NO, folder becomes folders, the attachment columns are dropped, Attachment starts empty")
    func notesContents() throws {
        let directory = TemporaryDirectory(prefix: "strata-notes")
        let url = directory.file("notes.sqlite")
        let v1 = try ManagedObjectModel(contentsOf: Self.ordered(Self.notes)[0])
        try MigrationHarness.with(v1, at: url) { context in
            let folder = try EntityDescription.insertNewObject(forEntityName: "Folder", into: context)
            folder.setValue("inbox", forKey: "name")
            for (title, body) in [("first", "hello" as String?), ("second", nil)] {
                let note = try EntityDescription.insertNewObject(forEntityName: "Note", into: context)
                note.setValue(title, forKey: "title")
                note.setValue(body, forKey: "body")
                note.setValue(Date(timeIntervalSinceReferenceDate: 10), forKey: "created")
                note.setValue("a.png", forKey: "attachmentName")
                note.setValue(title == "first" ? folder : nil, forKey: "folder")
            }
            try context.save()
        }
        let latest = try ManagedObjectModel(contentsOf: Self.notes)
        try MigrationHarness.with(latest, at: url, options: MigrationHarness.automatic) { context throws in
            let notes = try MigrationHarness.objects("Note", in: context, sortedBy: "title")
            #expect(notes.map { $0.value(forKey: "text") as? String } == ["hello", "(no text)"])
            #expect(notes.map { $0.value(forKey: "pinned") as? Bool } == [false, false])
            #expect(notes.map { MigrationHarness.names($0, "folders", "name") } == [["inbox"], []])
            #expect(notes.map { $0.value(forKey: "created") as? Date } == [Date(timeIntervalSinceReferenceDate: 10), Date(timeIntervalSinceReferenceDate: 10)])
            #expect(latest.entitiesByName["Note"]?.attributesByName["attachmentName"] == nil)
            #expect(try MigrationHarness.objects("Attachment", in: context).isEmpty)
            let folders = try MigrationHarness.objects("Folder", in: context)
            #expect(folders.map { MigrationHarness.names($0, "notes", "title") } == [["first"]])
        }
    }
}
