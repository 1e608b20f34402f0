import Foundation
import Strata
import StrataSQLite
import StrataTestSupport
import Testing

/// Bad input never crashes and never changes the store: each case throws a StrataError with the
/// right code and context, and the context stays usable.
@Suite("Bad input")
struct BadInputTests {
    func rowCount(_ stack: TestStack) throws -> Int {
        let context = stack.newContext()
        return try context.performAndWait { try context.count(for: FetchRequest<Sample>(entityName: "Sample")) }
    }

    func seeded() throws -> TestStack {
        let stack = try TestStack(model: ModelFixtures.allTypes())
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.name = "kept"
            try context.save()
        }
        return stack
    }

    @Test("unknown entity name")
    func unknownEntity() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let error = try #require(throws: StrataError.self) { try context.fetch(FetchRequest<ManagedObject>(entityName: "Nope")) }
            #expect(error.code == StrataError.Code.coreData)
            #expect(error.entityName == "Nope")
            let insertError = try #require(throws: StrataError.self) { try EntityDescription.insertNewObject(forEntityName: "Nope", into: context) }
            #expect(insertError.entityName == "Nope")
        }
    }

    @Test("unknown key in setValue is reported by save, store unchanged")
    func unknownKey() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.setValue("x", forKey: "noSuchKey")
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.managedObjectValidation)
            #expect(error.entityName == "Sample")
            #expect(error.key == "noSuchKey")
            #expect(context.hasChanges)
        }
        #expect(try rowCount(stack) == 1)
    }

    @Test("wrong value type is reported by save with entity, key and value")
    func wrongType() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.setValue("forty", forKey: "int64")
            #expect(sample.int64 == 0)  // not stored
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.managedObjectValidation)
            #expect(error.key == "int64")
            #expect(error.valueDescription == "forty")
            #expect(error.message.contains("String"))
        }
        #expect(try rowCount(stack) == 1)
    }

    @Test("missing required value, then fixed and saved again")
    func missingRequired() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.setValue(nil, forKey: "name")
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.validationMissingMandatoryProperty)
            #expect(error.key == "name")
            #expect(error.objectID == sample.objectID)
            sample.name = "fixed"
            try context.save()
        }
        #expect(try rowCount(stack) == 2)
    }

    @Test("out-of-range integer is a validation error, never a wrap")
    func outOfRange() throws {
        let stack = try seeded()
        let context = stack.newContext()
        try context.performAndWait {
            let sample = Sample(context: context)
            sample.setValue(40_000, forKey: "int16")
            sample.setValue(Int64(Int32.min) - 1, forKey: "int32")
            sample.setValue(UInt64.max, forKey: "int64")
            sample.setValue(1.5, forKey: "int16")
            let error = try #require(throws: StrataError.self) { try context.save() }
            #expect(error.code == StrataError.Code.validationMultipleErrors)
            let codes = Set(error.underlyingErrors.map(\.code))
            #expect(codes.contains(StrataError.Code.validationNumberTooLarge))
            #expect(codes.contains(StrataError.Code.validationNumberTooSmall))
            #expect(error.underlyingErrors.contains { $0.key == "int16" && $0.message.contains("40000") })
            #expect(error.underlyingErrors.contains { $0.key == "int16" && $0.message.contains("fractional") })
        }
        #expect(try rowCount(stack) == 1)
    }

    @Test("a store file full of garbage")
    func garbageFile() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("garbage.sqlite")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.allTypes())
        let error = try #require(throws: StrataError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == StrataError.Code.persistentStoreOpen)
        #expect(error.url == url)
        #expect(error.sqliteCode != nil)
        // The file is left as it was.
        #expect(try Data(contentsOf: url).count == 8192)
    }

    @Test("a store created with a different model")
    func differentModel() throws {
        let stack = try seeded()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
        let error = try #require(throws: StrataError.self) { try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL) }
        #expect(error.code == StrataError.Code.persistentStoreOpen)
        #expect(error.message.contains("incompatible"))
        #expect(error.message.contains("'Person'"))
        #expect(error.message.contains("'Sample'"))
        try stack.reopen()
        #expect(try rowCount(stack) == 1)
    }

    @Test("a SQLite file of another program is never touched")
    func foreignDatabase() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("other.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: ModelFixtures.people())
        do {
            let other = try SQLiteConnection(path: url.path)
            try other.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        }
        let error = try #require(throws: StrataError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
        #expect(error.code == StrataError.Code.persistentStoreOpen)
        #expect(error.message.contains("not created by Strata"))
        let check = try SQLiteConnection(path: url.path)
        let count = try check.makeStatement("SELECT count(*) FROM t")
        _ = try count.step()
        #expect(count.int64(at: 0) == 1)
    }
}
