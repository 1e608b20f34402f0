import Foundation
import Strata
import StrataTestSupport
import Testing

/// External binary storage (issue #16, item 7): when files appear and go. Core Data's facts:
/// an external value is managed by Core Data ("a separate file which it manages for you", Core
/// Data Release Notes for OS X Lion, `allowsExternalBinaryDataStorage`): the file follows the
/// value through saves, deletes and rollbacks, and an unsaved change writes nothing (a context
/// writes to the store only on `save()`, NSManagedObjectContext documentation). Strata's own
/// guarantees (files written before the referencing commit, removed only after the commit that
/// drops their last reference, orphans collected on open) are in docs/models-and-migration.md.
@Suite("External binary storage: lifecycle")
struct ExternalStorageLifecycleTests {
    typealias Fixture = ExternalStorageFixture

    @Test("replacing a value removes the old file after the save; setting nil removes it too")
    func updates() throws {
        let stack = try Fixture.stack()
        let first = Fixture.blob(1, size: 4_000)
        let second = Fixture.blob(2, size: 4_000)
        let ids = try Fixture.insert(stack.newContext(), [("p", first)])
        let context = stack.newContext()
        try context.performAndWait {
            let photo = try #require(try context.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.image = second
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(second)])
        try Fixture.expectConsistent(stack.storeURL)
        try context.performAndWait {
            let photo = try #require(try context.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.name = "renamed"  // another attribute: the file stays
            try context.save()
            #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(second)])
            photo.image = nil
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("a file shared by two rows stays until the last reference goes; deletes and cascades remove it")
    func deletesAndCascades() throws {
        let stack = try Fixture.stack()
        let shared = Fixture.blob(1, size: 3_000)
        let own = Fixture.blob(2, size: 3_000)
        let context = stack.newContext()
        let albumID = try context.performAndWait {
            let album = try EntityDescription.insertNewObject(forEntityName: "Album", into: context)
            for (name, image) in [("a", shared), ("b", shared), ("c", own)] {
                let photo = try #require(try EntityDescription.insertNewObject(forEntityName: "Photo", into: context) as? ExternalPhoto)
                photo.name = name
                photo.image = image
                if name != "a" { photo.setValue(album, forKey: "album") }
            }
            try context.save()
            return album.objectID
        }
        #expect(Fixture.files(stack.storeURL).count == 2)
        try context.performAndWait {
            let request = FetchRequest<ExternalPhoto>(entityName: "Photo")
            request.predicate = ObjectPredicate(format: "name == 'a'")
            for photo in try context.fetch(request) { context.delete(photo) }
            try context.save()
        }
        #expect(Set(Fixture.files(stack.storeURL)) == [Fixture.sha256(shared), Fixture.sha256(own)])
        try context.performAndWait {
            context.delete(try context.existingObject(with: albumID))  // cascades to b and c
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("a save that drops many references at once removes exactly the unreferenced files")
    func manyDrops() throws {
        let stack = try Fixture.stack()
        let shared = Fixture.blob(100, size: 2_000)
        var photos: [(String, Data?)] = (0..<20).map { ("p\($0)", Fixture.blob($0, size: 2_000)) }
        photos.append(("keep", shared))
        photos.append(("drop", shared))
        let ids = try Fixture.insert(stack.newContext(), photos)
        let context = stack.newContext()
        try context.performAndWait {
            for id in ids.dropLast(2).prefix(15) { context.delete(try context.existingObject(with: id)) }
            context.delete(try context.existingObject(with: ids[ids.count - 1]))
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL).count == 6)
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("rollback and unsaved changes write no file; a save that fails leaves no file behind")
    func rollbackAndFailedSave() throws {
        let stack = try Fixture.stack()
        let ids = try Fixture.insert(stack.newContext(), [("p", Fixture.blob(1, size: 2_000))])
        let before = Fixture.files(stack.storeURL)
        let context = stack.newContext()
        try context.performAndWait {
            let photo = try #require(try context.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.image = Fixture.blob(2, size: 2_000)
            #expect(Fixture.files(stack.storeURL) == before)
            context.rollback()
            #expect(photo.image == Fixture.blob(1, size: 2_000))
        }
        // A version conflict: the second save fails (merge policy error) after writing its file.
        let other = stack.newContext()
        other.retainsRegisteredObjects = true  // keeps the version it read
        try other.performAndWait {
            let photo = try #require(try other.existingObject(with: ids[0]) as? ExternalPhoto)
            _ = photo.image
        }
        try context.performAndWait {
            let photo = try #require(try context.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.name = "changed elsewhere"
            try context.save()
        }
        try other.performAndWait {
            let photo = try #require(try other.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.image = Fixture.blob(3, size: 2_000)
            #expect(throws: StrataError.self) { try other.save() }
            #expect(photo.image == Fixture.blob(3, size: 2_000))  // the context stays usable
        }
        #expect(Fixture.files(stack.storeURL) == before)
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("a file that cannot be written fails the save with a clear error; the store is unchanged and the context can save again")
    func unwritableFolder() throws {
        let stack = try Fixture.stack()
        let folder = Fixture.folder(stack.storeURL)
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: folder)  // a file where the folder should be
        let context = stack.newContext()
        let value = Fixture.blob(1, size: 2_000)
        try context.performAndWait {
            let photo = try #require(try EntityDescription.insertNewObject(forEntityName: "Photo", into: context) as? ExternalPhoto)
            photo.name = "p"
            photo.image = value
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.persistentStoreSave)
            #expect(error.localizedDescription.contains("External binary data"))
            #expect(context.hasChanges)
        }
        #expect(try Fixture.imageStorage(stack.storeURL).isEmpty)
        try FileManager.default.removeItem(at: folder)
        try context.performAndWait { try context.save() }
        #expect(try Fixture.images(stack) == ["p": value])
        try Fixture.expectConsistent(stack.storeURL)
    }

    /// Core Data: a context pinned to a query generation "sees the data as of that generation"
    /// until it is moved on (NSQueryGenerationToken, "Accessing data through a query
    /// generation"), so the files of the values it may still read must stay.
    @Test("a context pinned to a query generation still reads a value replaced since; the file goes once it moves on")
    func pinnedGeneration() throws {
        let stack = try Fixture.stack()
        let old = Fixture.blob(1, size: 3_000)
        let new = Fixture.blob(2, size: 3_000)
        let ids = try Fixture.insert(stack.newContext(), [("p", old)])
        let pinned = stack.newContext()
        try pinned.performAndWait { try pinned.setQueryGenerationFrom(.current) }
        let writer = stack.newContext()
        try writer.performAndWait {
            let photo = try #require(try writer.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.image = new
            try writer.save()
        }
        #expect(Set(Fixture.files(stack.storeURL)) == [Fixture.sha256(old), Fixture.sha256(new)])
        try pinned.performAndWait {
            pinned.stalenessInterval = 0
            let photo = try #require(try pinned.fetch(FetchRequest<ExternalPhoto>(entityName: "Photo")).first)
            #expect(photo.image == old)
            try pinned.setQueryGenerationFrom(nil)
        }
        try writer.performAndWait {
            let photo = try #require(try writer.existingObject(with: ids[0]) as? ExternalPhoto)
            photo.name = "another save"
            try writer.save()
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(new)])
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("a child context's save reaches the store's files only when the parent saves")
    func childContext() throws {
        let stack = try Fixture.stack()
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let value = Fixture.blob(5, size: 6_000)
        try child.performAndWait {
            let photo = try #require(try EntityDescription.insertNewObject(forEntityName: "Photo", into: child) as? ExternalPhoto)
            photo.name = "child"
            photo.image = value
            try child.save()
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
        try parent.performAndWait { try parent.save() }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(value)])
        try stack.reopen()
        #expect(try Fixture.images(stack) == ["child": value])
    }

    @Test("batch deletes remove the files of the rows they delete, cascades included")
    func batchDelete() throws {
        let stack = try Fixture.stack()
        try Fixture.insert(stack.newContext(), [("a", Fixture.blob(1, size: 2_000)), ("b", Fixture.blob(2, size: 2_000)), ("c", Fixture.blob(3, size: 2_000))])
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Photo")
            request.predicate = ObjectPredicate(format: "name != 'c'")
            _ = try context.execute(BatchDeleteRequest(fetchRequest: request))
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(Fixture.blob(3, size: 2_000))])
        try Fixture.expectConsistent(stack.storeURL)
        try context.performAndWait {
            _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Photo")))
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
    }

    @Test("batch updates write a large assigned value to a file and remove the values they replace")
    func batchUpdate() throws {
        let stack = try Fixture.stack()
        try Fixture.insert(stack.newContext(), [("a", Fixture.blob(1, size: 2_000)), ("b", Fixture.blob(2, size: 2_000))])
        let value = Fixture.blob(9, size: 8_000)
        let context = stack.newContext()
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Photo")
            update.propertiesToUpdate = ["image": value]
            _ = try context.execute(update)
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(value)])
        #expect(try Fixture.images(stack) == ["a": value, "b": value])
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Photo")
            update.propertiesToUpdate = ["image": ObjectExpression(forConstantValue: nil)]
            _ = try context.execute(update)
        }
        #expect(Fixture.files(stack.storeURL).isEmpty)
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("batch inserts write large values to files; values below the threshold stay in the row")
    func batchInsert() throws {
        let stack = try Fixture.stack()
        let large = Fixture.blob(1, size: 4_000)
        let small = Fixture.blob(2, size: 100)
        let context = stack.newContext()
        try context.performAndWait {
            let request = BatchInsertRequest(entityName: "Photo", objects: [["name": "a", "image": large], ["name": "b", "image": small], ["name": "c", "image": large]])
            _ = try context.execute(request)
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(large)])
        #expect(try Fixture.imageStorage(stack.storeURL) == ["a": "text", "b": "blob", "c": "text"])
        #expect(try Fixture.images(stack) == ["a": large, "b": small, "c": large])
        try Fixture.expectConsistent(stack.storeURL)
    }

    @Test("opening a store collects orphan and temporary files, keeps referenced ones and names it does not own")
    func orphanCollection() throws {
        let stack = try Fixture.stack()
        let kept = Fixture.blob(1, size: 2_000)
        try Fixture.insert(stack.newContext(), [("p", kept)])
        let folder = Fixture.folder(stack.storeURL)
        // What a process killed between writing a file and committing leaves behind.
        let orphan = Fixture.blob(2, size: 2_000)
        try orphan.write(to: folder.appendingPathComponent(Fixture.sha256(orphan)))
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent(Fixture.sha256(orphan) + ".tmp-" + UUID().uuidString))
        try Data("mine".utf8).write(to: folder.appendingPathComponent("README"))
        try stack.reopen()
        #expect(Fixture.names(stack.storeURL) == ["README", Fixture.sha256(kept)].sorted())
        #expect(try Fixture.images(stack) == ["p": kept])
    }

    @Test("a crash between commit and unlink leaves only an orphan: every reference still has its file")
    func crashAfterCommit() throws {
        let stack = try Fixture.stack()
        let value = Fixture.blob(1, size: 2_000)
        let ids = try Fixture.insert(stack.newContext(), [("p", value), ("q", Fixture.blob(2, size: 2_000))])
        let saved = try Data(contentsOf: Fixture.folder(stack.storeURL).appendingPathComponent(Fixture.sha256(value)))
        let context = stack.newContext()
        try context.performAndWait {
            context.delete(try context.existingObject(with: ids[0]))
            try context.save()
        }
        // Put the file back: as if the process died after the commit, before the unlink.
        try saved.write(to: Fixture.folder(stack.storeURL).appendingPathComponent(Fixture.sha256(value)))
        #expect(try Fixture.referencedHashes(stack.storeURL).isSubset(of: Set(Fixture.files(stack.storeURL))))
        try stack.reopen()
        try Fixture.expectConsistent(stack.storeURL)
        #expect(try Fixture.images(stack) == ["q": Fixture.blob(2, size: 2_000)])
    }

    @Test("a reference copied to another row as it is (as a migration's INSERT … SELECT does) stays valid")
    func copiedReference() throws {
        let stack = try Fixture.stack()
        let value = Fixture.blob(1, size: 2_000)
        try Fixture.insert(stack.newContext(), [("p", value), ("q", nil)])
        try stack.reopen()
        try Fixture.copyImage(from: "p", to: "q", in: stack.storeURL)
        let context = stack.newContext()
        try context.performAndWait {
            let request = FetchRequest<ExternalPhoto>(entityName: "Photo")
            request.predicate = ObjectPredicate(format: "name == 'p'")
            for photo in try context.fetch(request) { context.delete(photo) }
            try context.save()
        }
        #expect(Fixture.files(stack.storeURL) == [Fixture.sha256(value)])
        try stack.reopen()
        #expect(try Fixture.images(stack) == ["q": value])
    }
}
