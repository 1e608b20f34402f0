import Foundation
import Strata
import StrataTestSupport
import Testing

/// A policy error thrown for the person named "Bad".
struct RefusedPerson: Error {}

/// Throws for one source instance.
final class ThrowingPolicy: EntityMigrationPolicy {
    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        if sInstance.value(forKey: "fullName") as? String == "Bad Apple" { throw RefusedPerson() }
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
    }
}

/// Cancels the migration at its third instance.
final class CancellingPolicy: EntityMigrationPolicy {
    var count = 0
    override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        count += 1
        if count == 3 { manager.cancelMigrationWithError(RefusedPerson()) }
        try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
    }
}

/// Failures leave the source untouched and no destination (Core Data's
/// `migrateStore(from:type:options:mapping:to:type:options:)` throws and the destination is not
/// usable; `cancelMigrationWithError(_:)` documentation: the migration stops with the given
/// error; error codes from CoreDataErrors.h: NSMigrationError 134110, NSMigrationCancelledError
/// 134120, NSMigrationMissingMappingModelError 134140, NSMigrationManagerDestinationStoreError
/// 134160, NSEntityMigrationPolicyError 134170).
@Suite("Custom migration: failures, cancellation and progress")
struct CustomMigrationFailureTests {
    static func v2() -> ManagedObjectModel {
        ManagedObjectModel(entities: [MigrationFixture.entity("Person", [MigrationFixture.string("name", optional: false)])])
    }

    static func fill(_ count: Int, bad: Int? = nil) -> (ManagedObjectContext) throws -> Void {
        { context in
            for index in 0..<count {
                try MigrationFixture.insert("Person", ["fullName": index == bad ? "Bad Apple" : "Person \(index)"], into: context)
            }
        }
    }

    static func mapping(_ policy: EntityMigrationPolicy.Type? = nil, name: String = "$source.fullName") -> MappingModel {
        let mapping = EntityMapping(
            name: "PersonToPerson", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Person", attributeMappings: [MigrationFixture.map("name", name)])
        mapping.entityMigrationPolicyClass = policy
        return MappingModel(entityMappings: [mapping])
    }

    /// Runs a migration expected to fail, checks that the source is byte-for-byte the same and
    /// still opens with its model, and that no destination file exists; returns the error.
    static func failingMigration(
        _ mapping: MappingModel, count: Int = 6, bad: Int? = nil, batchSize: Int = 2, configure: (MigrationManager) -> Void = { _ in }
    ) throws -> StrataError? {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let source = folder.file("v1.sqlite")
        let destination = folder.file("v2.sqlite")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: source, fill(count, bad: bad))
        let before = FileManager.default.contents(atPath: source.path)
        let manager = MigrationManager(sourceModel: v1, destinationModel: v2())
        manager.saveBatchSize = batchSize
        configure(manager)
        let error = #expect(throws: StrataError.self) {
            try manager.migrateStore(from: source, type: .sqlite, mapping: mapping, to: destination, type: .sqlite)
        }
        #expect(!MigrationFixture.anyStoreFileExists(at: destination))
        #expect(FileManager.default.contents(atPath: source.path) == before)
        let names = try MigrationFixture.read(model: v1, at: source) { context in
            try MigrationFixture.fetch("Person", in: context).count
        }
        #expect(names == count)
        #expect(manager.sourceContext == nil && manager.destinationContext == nil)
        return error
    }

    /// A throwing policy: 134170 naming the mapping, the policy and the source object.
    @Test(arguments: [0, 2])
    func throwingPolicyLeavesSourceUntouched(batchSize: Int) throws {
        let error = try Self.failingMigration(Self.mapping(ThrowingPolicy.self), bad: 4, batchSize: batchSize)
        #expect(error?.code == StrataError.Code.entityMigrationPolicy)
        #expect(error?.message.contains("PersonToPerson") == true)
        #expect(error?.message.contains("ThrowingPolicy") == true)
        #expect(error?.message.contains("createDestinationInstances") == true)
        #expect(error?.objectID?.uriRepresentation().absoluteString.contains("/Person/p") == true)
        #expect(error?.entityName == "Person")
    }

    /// Cancelling from a policy with a non-Strata error: 134120.
    @Test func cancelMidwayFromAPolicy() throws {
        let error = try Self.failingMigration(Self.mapping(CancellingPolicy.self))
        #expect(error?.code == StrataError.Code.migrationCancelled)
    }

    /// Cancelling from the progress handler with a StrataError: that error comes back.
    @Test func cancelWithAStrataError() throws {
        let mine = StrataError(code: StrataError.Code.userCancelled, message: "stop")
        let error = try Self.failingMigration(Self.mapping()) { manager in
            manager.progressHandler = { [unowned manager] value in
                if value > 0.2 { manager.cancelMigrationWithError(mine) }
            }
        }
        #expect(error?.code == StrataError.Code.userCancelled)
        #expect(error?.message == "stop")
    }

    /// A migrated object that fails validation: 134110 with the validation error underneath,
    /// with and without batch saves (the destination context validates on save).
    @Test(arguments: [0, 1, 4])
    func validationFailureRemovesDestination(batchSize: Int) throws {
        let error = try Self.failingMigration(Self.mapping(name: "nil"), batchSize: batchSize)
        #expect(error?.code == StrataError.Code.migration)
        #expect(error?.underlyingErrors.first?.code == StrataError.Code.validationMissingMandatoryProperty)
        #expect(error?.entityName == "Person")
    }

    /// performCustomValidation may refuse the migrated objects.
    @Test func customValidationFailure() throws {
        final class Picky: EntityMigrationPolicy {
            override func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
                let count = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil).count
                if count > 3 { throw StrataError(code: StrataError.Code.managedObjectValidation, message: "too many people: \(count)") }
            }
        }
        let error = try Self.failingMigration(Self.mapping(Picky.self))
        #expect(error?.code == StrataError.Code.entityMigrationPolicy)
        #expect(error?.message.contains("too many people: 6") == true)
    }

    /// Unusable mapping models are refused before anything is opened: 134140.
    @Test func unusableMappingModels() throws {
        let undefined = EntityMapping(name: "X", mappingType: .undefined, sourceEntityName: "Person", destinationEntityName: "Person")
        let missing = EntityMapping(name: "Y", mappingType: .custom, sourceEntityName: "Nobody", destinationEntityName: "Person")
        let wrongDestination = EntityMapping(name: "Z", mappingType: .custom, sourceEntityName: "Person", destinationEntityName: "Nobody")
        for mapping in [undefined, missing, wrongDestination] {
            let error = try Self.failingMigration(MappingModel(entityMappings: [mapping]))
            #expect(error?.code == StrataError.Code.migrationMissingMappingModel)
            #expect(error?.message.contains("'\(mapping.name)'") == true)
        }
    }

    /// An existing destination file is never overwritten: 134160, the file left as it was.
    @Test func existingDestinationIsRefused() throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: folder.file("v1.sqlite"), Self.fill(1))
        try Data("keep me".utf8).write(to: folder.file("v2.sqlite"))
        let manager = MigrationManager(sourceModel: v1, destinationModel: Self.v2())
        let error = #expect(throws: StrataError.self) {
            try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: Self.mapping(), to: folder.file("v2.sqlite"), type: .sqlite)
        }
        #expect(error?.code == StrataError.Code.migrationManagerDestinationStore)
        #expect(FileManager.default.contents(atPath: folder.file("v2.sqlite").path) == Data("keep me".utf8))
    }

    /// Batch saves bound the objects the destination context holds (Strata's `saveBatchSize`;
    /// Core Data keeps the whole destination in memory, which its Core Data Model Versioning and
    /// Data Migration Programming Guide answers with several smaller mapping models).
    @Test func batchSavesBoundRegisteredObjects() throws {
        final class Watcher: EntityMigrationPolicy {
            nonisolated(unsafe) static var most = 0
            override func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
                try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
                Self.most = max(Self.most, manager.destinationContext?.registeredObjects.count ?? 0)
            }
        }
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: folder.file("v1.sqlite"), Self.fill(300))
        Watcher.most = 0
        let manager = MigrationManager(sourceModel: v1, destinationModel: Self.v2())
        manager.saveBatchSize = 25
        try manager.migrateStore(from: folder.file("v1.sqlite"), type: .sqlite, mapping: Self.mapping(Watcher.self), to: folder.file("v2.sqlite"), type: .sqlite)
        #expect(Watcher.most <= 50)
        let count = try MigrationFixture.read(model: Self.v2(), at: folder.file("v2.sqlite")) { try MigrationFixture.fetch("Person", in: $0).count }
        #expect(count == 300)
    }

    /// `migrationProgress` rises monotonically from 0 to 1 (Core Data's `migrationProgress`
    /// documentation: "a number from 0 to 1 that indicates the proportion of completeness"),
    /// and the Foundation `Progress` ends complete.
    @Test(arguments: [0, 3])
    func progressIsMonotonicAndEndsAtOne(batchSize: Int) throws {
        let folder = TemporaryDirectory(prefix: "strata-migration")
        let v1 = CustomMigrationPolicyTests.peopleV1()
        try MigrationFixture.makeStore(model: v1, at: folder.file("v1.sqlite"), Self.fill(10))
        let manager = MigrationManager(sourceModel: v1, destinationModel: CustomMigrationPolicyTests.peopleV2())
        manager.saveBatchSize = batchSize
        #expect(manager.migrationProgress == 0)
        var values: [Float] = []
        manager.progressHandler = { values.append($0) }
        try manager.migrateStore(
            from: folder.file("v1.sqlite"), type: .sqlite, mapping: CustomMigrationPolicyTests.splitMapping(), to: folder.file("v2.sqlite"), type: .sqlite)
        #expect(values.count >= 20)
        #expect(values == values.sorted())
        #expect(values.first.map { $0 > 0 && $0 < 0.1 } == true)
        #expect(values.last == 1)
        #expect(manager.migrationProgress == 1)
        #expect(manager.progress.fractionCompleted == 1)
        #expect(manager.progress.totalUnitCount == 2 * 10 + 1)
    }
}
