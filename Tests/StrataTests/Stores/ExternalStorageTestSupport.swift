import Foundation
import StrataSQLite
import StrataTestSupport
import Testing

@testable import Strata

/// A photo whose `image` allows external binary data storage and whose `thumbnail` does not.
final class ExternalPhoto: ManagedObject {
    @Attribute("name") var name: String
    @Attribute("image") var image: Data?
    @Attribute("thumbnail") var thumbnail: Data?
}

/// The model, stacks and file checks of the external storage tests.
enum ExternalStorageFixture {
    /// The threshold most tests use (small values keep the tests fast).
    static let threshold = 1_000

    /// Album ⇄ photos (cascade / nullify); Photo: name, image (external storage allowed),
    /// thumbnail (binary, not allowed).
    static func model() -> ManagedObjectModel {
        let album = EntityDescription(name: "Album")
        let photo = EntityDescription(name: "Photo", managedObjectClass: ExternalPhoto.self)
        let image = AttributeDescription(name: "image", type: .binaryData)
        image.allowsExternalBinaryDataStorage = true
        album.properties = [
            AttributeDescription(name: "title", type: .string),
            RelationshipDescription(name: "photos", destination: photo, inverse: "album", toMany: true, deleteRule: .cascade),
        ]
        photo.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            image,
            AttributeDescription(name: "thumbnail", type: .binaryData),
            RelationshipDescription(name: "album", destination: album, inverse: "photos"),
        ]
        return ManagedObjectModel(entities: [album, photo])
    }

    /// A SQLite stack (or in-memory) with `threshold` (nil: the default).
    static func stack(threshold: Int? = Self.threshold, kind: TestStack.Kind = .sqlite, model: ManagedObjectModel = model()) throws -> TestStack {
        var options: [String: any Sendable] = [:]
        if let threshold { options[PersistentStoreOption.externalBinaryDataThreshold] = threshold }
        return try TestStack(model: model, kind: kind, options: options, recordsSQL: false)
    }

    /// `size` bytes that differ with `seed`.
    static func blob(_ seed: Int, size: Int) -> Data {
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        return Data(
            (0..<size).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            })
    }

    static func folder(_ url: URL) -> URL { SQLiteStore.externalDataFolder(forStoreAt: url) }

    /// Every name in the store's external data folder, sorted.
    static func names(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder(url).path)) ?? []).sorted()
    }

    /// The finished files (hash names) in the store's folder.
    static func files(_ url: URL) -> [String] { names(url).filter(ExternalBinaryReference.isHash) }

    /// Whether every file's SHA-256 is its name.
    static func filesMatchTheirNames(_ url: URL) -> Bool {
        files(url).allSatisfy { name in
            (try? Data(contentsOf: folder(url).appendingPathComponent(name))).map(SHA256.hexDigest) == name
        }
    }

    /// The hashes the store's rows refer to, read with a raw connection.
    static func referencedHashes(_ url: URL, model: ManagedObjectModel = model()) throws -> Set<String> {
        var options = SQLiteConfiguration()
        options.readOnly = true
        let connection = try SQLiteConnection(path: url.path, configuration: options)
        var hashes = Set<String>()
        for column in SQLiteStore.externalReferenceColumns(for: model) {
            try connection.makeStatement("SELECT \"\(column.column)\" FROM \"\(column.table)\"").forEachRow { row in
                if let text = row.text(at: 0), let hash = ExternalBinaryReference.hash(inText: text) { hashes.insert(hash) }
            }
        }
        return hashes
    }

    /// The storage classes of the photos' image column, by name.
    static func imageStorage(_ url: URL) throws -> [String: String] {
        var options = SQLiteConfiguration()
        options.readOnly = true
        let connection = try SQLiteConnection(path: url.path, configuration: options)
        var result: [String: String] = [:]
        try connection.makeStatement("SELECT ZNAME, typeof(ZIMAGE) FROM ZPHOTO").forEachRow { row in
            result[row.text(at: 0) ?? ""] = row.text(at: 1) ?? ""
        }
        return result
    }

    /// The store is consistent: every reference has its file, every file is referenced and
    /// has the hash of its name, and no temporary file is left.
    static func expectConsistent(_ url: URL, model: ManagedObjectModel = model(), sourceLocation: SourceLocation = #_sourceLocation) throws {
        let referenced = try referencedHashes(url, model: model)
        #expect(Set(files(url)) == referenced, sourceLocation: sourceLocation)
        #expect(names(url).count == files(url).count, "temporary files left: \(names(url))", sourceLocation: sourceLocation)
        #expect(filesMatchTheirNames(url), sourceLocation: sourceLocation)
    }

    /// Inserts photos named `name` with `image`s, saved.
    @discardableResult
    static func insert(_ context: ManagedObjectContext, _ photos: [(String, Data?)]) throws -> [ManagedObjectID] {
        try context.performAndWait {
            let objects = try photos.map { name, image in
                let photo = try #require(try EntityDescription.insertNewObject(forEntityName: "Photo", into: context) as? ExternalPhoto)
                photo.name = name
                photo.image = image
                return photo
            }
            try context.save()
            return objects.map(\.objectID)
        }
    }

    /// The images of every photo by name, read in a fresh context.
    static func images(_ stack: TestStack) throws -> [String: Data?] {
        let context = stack.newContext()
        return try context.performAndWait {
            let photos = try context.fetch(FetchRequest<ExternalPhoto>(entityName: "Photo"))
            var result: [String: Data?] = [:]
            for photo in photos { result[photo.name] = photo.image }
            return result
        }
    }
}

extension ExternalStorageFixture {
    /// The file name of `data`.
    static func sha256(_ data: Data) -> String { SHA256.hexDigest(data) }
}

extension ExternalStorageFixture {
    /// Copies photo `source`'s image column value to photo `target` with raw SQL.
    static func copyImage(from source: String, to target: String, in url: URL) throws {
        let connection = try SQLiteConnection(path: url.path)
        try connection.makeStatement("UPDATE ZPHOTO SET ZIMAGE = (SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = ?) WHERE ZNAME = ?").execute([.text(source), .text(target)])
    }
}
