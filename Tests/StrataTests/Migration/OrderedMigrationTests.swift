import Foundation
import Strata
import StrataTestSupport
import Testing

/// Ordered relationships through a migration. Core Data's "Lightweight Migration" guide: a
/// relationship changing between to-one and to-many is inferred; an ordered to-many keeps its
/// order (`NSOrderedSet`) when its storage changes, and many-to-many relationships keep their
/// members.
@Suite("Migration: ordered and many-to-many relationships")
struct OrderedMigrationTests {
    static let v1 = """
        <entity name="Playlist">
            <attribute name="name" attributeType="String"/>
            <relationship name="songs" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="playlist" inverseEntity="Song"/>
        </entity>
        <entity name="Song">
            <attribute name="title" attributeType="String"/>
            <relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="songs" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag">
            <attribute name="name" attributeType="String"/>
            <relationship name="songs" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Song" inverseName="tags" inverseEntity="Song"/>
        </entity>
        """

    /// Song.playlist becomes Song.playlists (to-many): Playlist.songs is now one side of an
    /// ordered many-to-many, kept in a join table with positions.
    static let v2 =
        v1
        .replacingOccurrences(
            of: #"<relationship name="playlist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist"/>"#,
            with:
                #"<relationship name="playlists" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Playlist" inverseName="songs" inverseEntity="Playlist" elementID="playlist"/><attribute name="length" attributeType="Integer 32" defaultValueString="60"/>"#
        )
        .replacingOccurrences(of: #"inverseName="playlist" inverseEntity="Song""#, with: #"inverseName="playlists" inverseEntity="Song""#)

    @Test("an ordered one-to-many that becomes an ordered many-to-many keeps its order; a many-to-many keeps its members")
    func orderKept() throws {
        let scratch = ModelFileScratch()
        let before = try MigrationHarness.model(Self.v1, scratch: scratch, name: "V1")
        let after = try MigrationHarness.model(Self.v2, scratch: scratch, name: "V2")
        let url = scratch.directory.file("ordered.sqlite")
        try MigrationHarness.with(before, at: url) { context in
            let playlist = try EntityDescription.insertNewObject(forEntityName: "Playlist", into: context)
            playlist.setValue("mix", forKey: "name")
            let tag = try EntityDescription.insertNewObject(forEntityName: "Tag", into: context)
            tag.setValue("jazz", forKey: "name")
            for title in ["c", "a", "b"] {
                let song = try EntityDescription.insertNewObject(forEntityName: "Song", into: context)
                song.setValue(title, forKey: "title")
                playlist.mutableOrderedSetValue(forKey: "songs").add(song)
                if title != "b" { song.mutableSetValue(forKey: "tags").add(tag) }
            }
            try context.save()
        }
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [before]]) { a, _ in a }
        try MigrationHarness.with(after, at: url, options: options) { context in
            let playlist = try #require(try MigrationHarness.objects("Playlist", in: context).first)
            let songs = playlist.value(forKey: "songs") as? [ManagedObject] ?? []
            #expect(songs.map { $0.value(forKey: "title") as? String } == ["c", "a", "b"])
            let all = try MigrationHarness.objects("Song", in: context, sortedBy: "title")
            #expect(all.map { MigrationHarness.names($0, "playlists", "name") } == [["mix"], ["mix"], ["mix"]])
            #expect(all.map { MigrationHarness.names($0, "tags", "name") } == [["jazz"], [], ["jazz"]])
            #expect(all.map { InPlaceMigrationTests.int($0.value(forKey: "length")) } == [60, 60, 60])
        }
    }

    static let withoutInverse = """
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item"/>
        </entity>
        <entity name="Item">
            <attribute name="title" attributeType="String"/>
        </entity>
        """

    static let withInverse = """
        <entity name="Person">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="owner" inverseEntity="Item"/>
        </entity>
        <entity name="Item">
            <attribute name="title" attributeType="String"/>
            <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Person" inverseName="items" inverseEntity="Person"/>
        </entity>
        """

    @Test("a to-many gaining an inverse to-one (join table → foreign key) and losing it again keeps its members", arguments: [true, false])
    func inverseAddedOrRemoved(_ adding: Bool) throws {
        let scratch = ModelFileScratch()
        let before = try MigrationHarness.model(adding ? Self.withoutInverse : Self.withInverse, scratch: scratch, name: "Before")
        let after = try MigrationHarness.model(adding ? Self.withInverse : Self.withoutInverse, scratch: scratch, name: "After")
        let url = scratch.directory.file("inverse.sqlite")
        try MigrationHarness.with(before, at: url) { context in
            for (name, titles) in [("ann", ["a", "b"]), ("bob", ["c"])] {
                let person = try EntityDescription.insertNewObject(forEntityName: "Person", into: context)
                person.setValue(name, forKey: "name")
                for title in titles {
                    let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: context)
                    item.setValue(title, forKey: "title")
                    person.mutableSetValue(forKey: "items").add(item)
                }
            }
            try EntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue("loose", forKey: "title")
            try context.save()
        }
        let options = MigrationHarness.automatic.merging([PersistentStoreOption.migrationSourceModels: [before]]) { a, _ in a }
        try MigrationHarness.with(after, at: url, options: options) { context throws in
            let people = try MigrationHarness.objects("Person", in: context, sortedBy: "name")
            #expect(people.map { MigrationHarness.names($0, "items", "title") } == [["a", "b"], ["c"]])
            if adding {
                let items = try MigrationHarness.objects("Item", in: context, sortedBy: "title")
                #expect(items.map { MigrationHarness.names($0, "owner", "name") } == [["ann"], ["ann"], ["bob"], []])
            }
        }
    }
}
