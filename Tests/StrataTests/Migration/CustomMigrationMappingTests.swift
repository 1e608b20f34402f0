import Foundation
import Strata
import StrataTestSupport
import Testing

/// Answers `FUNCTION($entityPolicy, "labelFor:", …)` in a property mapping (Core Data calls the
/// selector on the policy; `NSMigrationEntityPolicyKey` documentation).
final class LabelPolicy: EntityMigrationPolicy {
    override func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        guard selector == "labelFor:", let name = arguments.first as? String else {
            return try super.value(forFunction: selector, arguments: arguments, manager: manager)
        }
        return "#" + name.uppercased()
    }
}

/// The default policy driven by property mappings: value expressions over `$source`, and
/// relationships re-created through the associations (Core Data Model Versioning and Data
/// Migration Programming Guide, "Mapping Overview": property mappings' value expressions, with
/// `$source`, `$manager`, `$entityMapping` and `$entityPolicy`; the default relationship
/// mapping expression `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`).
@Suite("Custom migration: property mappings")
struct CustomMigrationMappingTests {
    static func productsV1() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            MigrationFixture.entity("Product", [MigrationFixture.string("name", optional: false), AttributeDescription(name: "price", type: .double)])
        ])
    }

    static func productsV2() -> ManagedObjectModel {
        ManagedObjectModel(entities: [
            MigrationFixture.entity(
                "Product",
                [
                    MigrationFixture.string("name", optional: false), AttributeDescription(name: "cents", type: .integer64, isOptional: false, defaultValue: Int64(0)),
                    MigrationFixture.string("label"), MigrationFixture.string("note"),
                ])
        ])
    }

    /// `$source.price * 100` into an integer attribute, a policy function and a constant.
    @Test func expressionsComputeAttributes() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        try MigrationFixture.makeStore(model: Self.productsV1(), at: folder.file("v1.sqlite")) { context in
            try MigrationFixture.insert("Product", ["name": "tea", "price": 2.5], into: context)
            try MigrationFixture.insert("Product", ["name": "cake", "price": 19.5], into: context)
            try MigrationFixture.insert("Product", ["name": "free", "price": 0.0], into: context)
        }
        let mapping = EntityMapping(
            name: "ProductToProduct", mappingType: .transform, sourceEntityName: "Product", destinationEntityName: "Product",
            attributeMappings: [
                MigrationFixture.map("name", "name"), MigrationFixture.map("cents", "$source.price * 100"),
                MigrationFixture.map("label", "FUNCTION($entityPolicy, \"labelFor:\", $source.name)"), MigrationFixture.map("note", "'migrated'"),
            ])
        mapping.entityMigrationPolicyClass = LabelPolicy.self
        let manager = MigrationManager(sourceModel: Self.productsV1(), destinationModel: Self.productsV2())
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [mapping]), to: folder.file("v2.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: Self.productsV2(), at: folder.file("v2.sqlite")) { context in
            let products = try MigrationFixture.fetch("Product", in: context, sortedBy: "name")
            #expect(products.map { $0.value(forKey: "name") as? String } == ["cake", "free", "tea"])
            #expect(products.map { $0.value(forKey: "cents") as? Int64 } == [1950, 0, 250])
            #expect(products.map { $0.value(forKey: "label") as? String } == ["#CAKE", "#FREE", "#TEA"])
            #expect(products.allSatisfy { $0.value(forKey: "note") as? String == "migrated" })
        }
    }

    /// A value the destination attribute cannot hold (a fraction into an integer) stops the
    /// migration with an error naming the mapping and the attribute; no destination is left.
    @Test func unstorableValueIsAnError() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        try MigrationFixture.makeStore(model: Self.productsV1(), at: folder.file("v1.sqlite")) { context in
            try MigrationFixture.insert("Product", ["name": "odd", "price": 0.333], into: context)
        }
        let mapping = EntityMapping(
            name: "ProductToProduct", mappingType: .transform, sourceEntityName: "Product", destinationEntityName: "Product",
            attributeMappings: [MigrationFixture.map("name", "$source.name"), MigrationFixture.map("cents", "$source.price * 100")])
        let manager = MigrationManager(sourceModel: Self.productsV1(), destinationModel: Self.productsV2())
        let error = #expect(throws: StrataError.self) {
            try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [mapping]), to: folder.file("v2.sqlite"), type: .sqlite)
        }
        #expect(error?.code == StrataError.Code.entityMigrationPolicy)
        #expect(error?.message.contains("ProductToProduct") == true)
        #expect(error?.message.contains("Product.cents") == true)
        #expect(!MigrationFixture.anyStoreFileExists(at: folder.file("v2.sqlite")))
    }

    static func musicModel(songTitleKey: String) -> ManagedObjectModel {
        let album = MigrationFixture.entity("Album", [MigrationFixture.string("title", optional: false)])
        let song = MigrationFixture.entity("Song", [MigrationFixture.string(songTitleKey, optional: false)])
        let playlist = MigrationFixture.entity("Playlist", [MigrationFixture.string("name", optional: false)])
        album.properties += [RelationshipDescription(name: "tracks", destination: song, inverse: "album", toMany: true)]
        song.properties += [
            RelationshipDescription(name: "album", destination: album, inverse: "tracks"),
            RelationshipDescription(name: "playlists", destination: playlist, inverse: "songs", toMany: true),
        ]
        playlist.properties += [RelationshipDescription(name: "songs", destination: song, inverse: "playlists", toMany: true, isOrdered: true)]
        return ManagedObjectModel(entities: [album, song, playlist])
    }

    /// To-one, to-many and ordered to-many relationships re-created from `$source.rel` and from
    /// the `$manager` lookup, the ordered one keeping its order.
    @Test(arguments: [0, 1])
    func relationshipsAreRecreated(batchSize: Int) throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v1 = Self.musicModel(songTitleKey: "title")
        let v2 = Self.musicModel(songTitleKey: "name")
        try MigrationFixture.makeStore(model: v1, at: folder.file("v1.sqlite")) { context in
            let album = try MigrationFixture.insert("Album", ["title": "Blue"], into: context)
            let songs = try ["a", "b", "c", "d"].map { try MigrationFixture.insert("Song", ["title": $0], into: context) }
            for song in songs.prefix(3) { song.setValue(album, forKey: "album") }
            try MigrationFixture.insert("Playlist", ["name": "mix", "songs": [songs[2], songs[0], songs[3], songs[1]]], into: context)
            try MigrationFixture.insert("Playlist", ["name": "empty"], into: context)
        }
        let albums = EntityMapping(
            name: "AlbumToAlbum", mappingType: .transform, sourceEntityName: "Album", destinationEntityName: "Album",
            attributeMappings: [MigrationFixture.map("title", "$source.title")],
            relationshipMappings: [MigrationFixture.map("tracks", "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"SongToSong\", $source.tracks)")])
        let songs = EntityMapping(
            name: "SongToSong", mappingType: .transform, sourceEntityName: "Song", destinationEntityName: "Song",
            attributeMappings: [MigrationFixture.map("name", "$source.title")],
            relationshipMappings: [
                MigrationFixture.map("album", "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"album\", $source.album)")
            ])
        let playlists = EntityMapping(
            name: "PlaylistToPlaylist", mappingType: .transform, sourceEntityName: "Playlist", destinationEntityName: "Playlist",
            attributeMappings: [MigrationFixture.map("name", "$source.name")], relationshipMappings: [MigrationFixture.map("songs", "$source.songs")])
        let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
        manager.saveBatchSize = batchSize
        try manager.migrateStore(
            from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [albums, songs, playlists]), to: folder.file("v2.sqlite"), type: .sqlite)

        try MigrationFixture.read(model: v2, at: folder.file("v2.sqlite")) { context in
            let album = try #require(try MigrationFixture.fetch("Album", in: context).first)
            let tracks = (album.value(forKey: "tracks") as? Set<ManagedObject>) ?? []
            #expect(tracks.compactMap { $0.value(forKey: "name") as? String }.sorted() == ["a", "b", "c"])
            let songs = try MigrationFixture.fetch("Song", in: context, sortedBy: "name")
            #expect(songs.map { ($0.value(forKey: "album") as? ManagedObject)?.value(forKey: "title") as? String } == ["Blue", "Blue", "Blue", nil])
            let playlists = try MigrationFixture.fetch("Playlist", in: context, sortedBy: "name")
            let order = playlists.map { (($0.value(forKey: "songs") as? [ManagedObject]) ?? []).compactMap { $0.value(forKey: "name") as? String } }
            #expect(order == [[], ["c", "a", "d", "b"]])
            #expect((songs[3].value(forKey: "playlists") as? Set<ManagedObject>)?.count == 1)
        }
    }

    static func inheritanceModel() -> ManagedObjectModel {
        let person = MigrationFixture.entity("Person", [MigrationFixture.string("name", optional: false)])
        let employee = MigrationFixture.entity("Employee", [AttributeDescription(name: "salary", type: .integer64, isOptional: false, defaultValue: Int64(0))])
        person.subentities = [employee]
        return ManagedObjectModel(entities: [person, employee])
    }

    /// A mapping migrates its source entity's own instances, not its sub-entities' (Core Data's
    /// default source expression fetches with `includesSubentities` off), unless it says so; its
    /// `sourceInstancesPredicate` filters them.
    @Test func subentitiesAndPredicate() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let model = Self.inheritanceModel()
        try MigrationFixture.makeStore(model: model, at: folder.file("v1.sqlite")) { context in
            for name in ["ann", "bob", "cy"] { try MigrationFixture.insert("Person", ["name": name], into: context) }
            try MigrationFixture.insert("Employee", ["name": "eve", "salary": Int64(5)], into: context)
        }
        let people = EntityMapping(name: "PersonToPerson", mappingType: .copy, sourceEntityName: "Person", destinationEntityName: "Person")
        people.sourceInstancesPredicate = ObjectPredicate(format: "name != 'bob'")
        let employees = EntityMapping(name: "EmployeeToEmployee", mappingType: .copy, sourceEntityName: "Employee", destinationEntityName: "Employee")
        let manager = MigrationManager(sourceModel: model, destinationModel: Self.inheritanceModel())
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [people, employees]), to: folder.file("v2.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: Self.inheritanceModel(), at: folder.file("v2.sqlite")) { context in
            let all = try MigrationFixture.fetch("Person", in: context, sortedBy: "name")
            #expect(all.map { "\($0.entity.name):\($0.value(forKey: "name") as? String ?? "")" } == ["Person:ann", "Person:cy", "Employee:eve"])
            #expect(all.last?.value(forKey: "salary") as? Int64 == 5)
        }

        // With sub-entities included and no employee mapping, the employee becomes a Person.
        people.sourceInstancesIncludeSubentities = true
        let again = MigrationManager(sourceModel: model, destinationModel: Self.inheritanceModel())
        try again.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: MappingModel(entityMappings: [people]), to: folder.file("v3.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: Self.inheritanceModel(), at: folder.file("v3.sqlite")) { context in
            let all = try MigrationFixture.fetch("Person", in: context, sortedBy: "name")
            #expect(all.map { "\($0.entity.name):\($0.value(forKey: "name") as? String ?? "")" } == ["Person:ann", "Person:cy", "Person:eve"])
        }
    }

    /// `remove` mappings drop their instances and `add` mappings create none (NSEntityMappingType
    /// documentation).
    @Test func removeAndAddMappings() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v1 = CustomMigrationPolicyTests.tagsModel()
        let v2 = ManagedObjectModel(entities: [
            MigrationFixture.entity("Note", [MigrationFixture.string("title", optional: false)]), MigrationFixture.entity("Folder", [MigrationFixture.string("name")]),
        ])
        try MigrationFixture.makeStore(model: v1, at: folder.file("v1.sqlite")) { context in
            let tag = try MigrationFixture.insert("Tag", ["name": "x"], into: context)
            try MigrationFixture.insert("Note", ["title": "n", "tags": Set([tag])], into: context)
        }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "TagToNothing", mappingType: .remove, sourceEntityName: "Tag", destinationEntityName: nil),
            EntityMapping(name: "NoteToNote", mappingType: .copy, sourceEntityName: "Note", destinationEntityName: "Note"),
            EntityMapping(name: "NothingToFolder", mappingType: .add, sourceEntityName: nil, destinationEntityName: "Folder"),
        ])
        let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: mapping, to: folder.file("v2.sqlite"), type: .sqlite)
        try MigrationFixture.read(model: v2, at: folder.file("v2.sqlite")) { context in
            let notes = try MigrationFixture.fetch("Note", in: context)
            #expect(notes.map { $0.value(forKey: "title") as? String } == ["n"])
            let folders = try MigrationFixture.fetch("Folder", in: context)
            #expect(folders.isEmpty)
        }
    }
}
