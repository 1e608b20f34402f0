import Foundation
import Strata
import StrataTestSupport
import Testing

/// External binary storage (issue #16, item 7): where values go and how every read path gets
/// them back. Core Data's facts: "If you specify that the value of a managed object attribute
/// may be stored as an external record, Core Data heuristically decides on a per-value basis
/// whether it should save the data directly in the database or store a URI to a separate file
/// that it manages for you" (Core Data Release Notes for OS X Lion / What's New in iOS 5.0, on
/// `allowsExternalBinaryDataStorage`); values of about 100 KB and more go to files in the hidden
/// `_EXTERNAL_DATA` folder beside the SQLite file (Apple engineers, Ask Apple 2022), and reading
/// the attribute gives the data back as if it were in the row. Strata's rule is exact (a
/// threshold, `PersistentStoreOption.externalBinaryDataThreshold`), its files are named by
/// SHA-256; see docs/models-and-migration.md, "External binary storage".
@Suite("External binary storage: values")
struct ExternalStorageTests {
    typealias Fixture = ExternalStorageFixture

    @Test("a value just below the threshold stays in the row; at and above it, it goes to a file")
    func thresholdBoundary() throws {
        let stack = try Fixture.stack()
        let below = Fixture.blob(1, size: Fixture.threshold - 1)
        let at = Fixture.blob(2, size: Fixture.threshold)
        let above = Fixture.blob(3, size: Fixture.threshold + 1)
        try Fixture.insert(stack.newContext(), [("below", below), ("at", at), ("above", above), ("nil", nil)])
        #expect(try Fixture.imageStorage(stack.storeURL) == ["below": "blob", "at": "text", "above": "text", "nil": "null"])
        #expect(Fixture.files(stack.storeURL).count == 2)
        try Fixture.expectConsistent(stack.storeURL)
        try stack.reopen()
        #expect(try Fixture.images(stack) == ["below": below, "at": at, "above": above, "nil": nil])
    }

    @Test("the default threshold is 100 KB (102 400 bytes)")
    func defaultThreshold() throws {
        let stack = try Fixture.stack(threshold: nil)
        let below = Fixture.blob(1, size: 102_399)
        let at = Fixture.blob(2, size: 102_400)
        try Fixture.insert(stack.newContext(), [("below", below), ("at", at)])
        #expect(try Fixture.imageStorage(stack.storeURL) == ["below": "blob", "at": "text"])
        try stack.reopen()
        #expect(try Fixture.images(stack) == ["below": below, "at": at])
    }

    @Test("equal values share one file, named by their SHA-256, under .<StoreName>_SUPPORT/_EXTERNAL_DATA")
    func equalValuesShareAFile() throws {
        let stack = try Fixture.stack()
        let value = Fixture.blob(7, size: 5_000)
        try Fixture.insert(stack.newContext(), [("a", value), ("b", value)])
        try Fixture.insert(stack.newContext(), [("c", value)])
        let folder = stack.storeURL.deletingLastPathComponent().appendingPathComponent(".Test_SUPPORT/_EXTERNAL_DATA")
        #expect(Fixture.folder(stack.storeURL).standardizedFileURL == folder.standardizedFileURL)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == [Fixture.sha256(value)])
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("an attribute without allowsExternalBinaryDataStorage keeps large values in the row")
    func unflaggedStaysInline() throws {
        let stack = try Fixture.stack()
        let context = stack.newContext()
        let large = Fixture.blob(4, size: 50_000)
        try context.performAndWait {
            let photo = try #require(try EntityDescription.insertNewObject(forEntityName: "Photo", into: context) as? ExternalPhoto)
            photo.name = "p"
            photo.thumbnail = large
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let photo = try #require(try reader.fetch(FetchRequest<ExternalPhoto>(entityName: "Photo")).first)
            #expect(photo.thumbnail == large)
        }
    }

    @Test("a transformable attribute that allows external storage keeps its transformed bytes in a file")
    func transformable() throws {
        let model = ModelFixtures.allTypes()
        let color = try #require(model.entitiesByName["Sample"]?.attributesByName["color"])
        color.allowsExternalBinaryDataStorage = true
        let stack = try Fixture.stack(threshold: 8, model: model)
        let context = stack.newContext()
        let value = Color(red: 0.25, green: 0.5, blue: 0.75)
        try context.performAndWait {
            let sample = try #require(try EntityDescription.insertNewObject(forEntityName: "Sample", into: context) as? Sample)
            sample.color = value
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL).count == 1)
        try stack.reopen()
        let reader = stack.newContext()
        try reader.performAndWait {
            let sample = try #require(try reader.fetch(FetchRequest<Sample>(entityName: "Sample")).first)
            #expect(sample.color == value)
        }
        try Fixture.expectConsistent(stack.storeURL, model: model)
    }

    @Test("faults, value(forKey:), batched fetches, refreshes and dictionary results read the file's bytes")
    func readPaths() throws {
        let stack = try Fixture.stack()
        let values = (0..<6).map { Fixture.blob($0, size: 2_000 + $0) }
        try Fixture.insert(stack.newContext(), values.enumerated().map { ("p\($0.offset)", $0.element) })
        try stack.reopen()
        let context = stack.newContext()
        try context.performAndWait {
            let faults = FetchRequest<ExternalPhoto>(entityName: "Photo")
            faults.returnsObjectsAsFaults = true
            faults.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let photos = try context.fetch(faults)
            #expect(photos.count == 6)
            #expect(photos.allSatisfy { $0.isFault })
            #expect(photos.map(\.image) == values)
            #expect(photos.map { $0.value(forKey: "image") as? Data } == values)
            context.refresh(photos[0], mergeChanges: false)
            #expect(photos[0].image == values[0])

            let batched = FetchRequest<ExternalPhoto>(entityName: "Photo")
            batched.fetchBatchSize = 2
            batched.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            #expect(try context.fetch(batched).map(\.image) == values)

            let dictionaries = FetchRequest<NSDictionary>(entityName: "Photo")
            dictionaries.resultType = .dictionaryResultType
            dictionaries.propertiesToFetch = ["name", "image"]
            dictionaries.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let rows = try context.fetch(dictionaries)
            #expect(rows.map { $0["image"] as? Data } == values)
        }
    }

    @Test("predicates: == nil and != nil, == and != a data value (in a file or in the row), others a clear error")
    func predicates() throws {
        let stack = try Fixture.stack()
        let large = Fixture.blob(1, size: 3_000)
        let small = Fixture.blob(2, size: 10)
        try Fixture.insert(stack.newContext(), [("large", large), ("small", small), ("none", nil), ("large2", large)])
        let context = stack.newContext()
        func names(_ predicate: ObjectPredicate) throws -> [String] {
            try context.performAndWait {
                let request = FetchRequest<ExternalPhoto>(entityName: "Photo")
                request.predicate = predicate
                request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
                return try context.fetch(request).map(\.name)
            }
        }
        #expect(try names(ObjectPredicate(format: "image == nil")) == ["none"])
        #expect(try names(ObjectPredicate(format: "image != nil")) == ["large", "large2", "small"])
        #expect(try names(ObjectPredicate(format: "image == %@", large)) == ["large", "large2"])
        #expect(try names(ObjectPredicate(format: "image == %@", small)) == ["small"])
        #expect(try names(ObjectPredicate(format: "image != %@", large)) == ["none", "small"])
        #expect(try names(ObjectPredicate(format: "image == %@", Fixture.blob(9, size: 3_000))) == [])
        let error = try #require(throws: StrataError.self) { try names(ObjectPredicate(format: "image > %@", small)) }
        #expect(error.localizedDescription.contains("external binary data storage"))
    }

    @Test("an in-memory store keeps every value inline and creates no folder")
    func inMemoryInline() throws {
        let stack = try Fixture.stack(kind: .inMemory)
        let large = Fixture.blob(1, size: 200_000)
        try Fixture.insert(stack.newContext(), [("p", large)])
        #expect(try Fixture.images(stack) == ["p": large])
        #expect(!FileManager.default.fileExists(atPath: Fixture.folder(stack.storeURL).deletingLastPathComponent().path))
    }
}
