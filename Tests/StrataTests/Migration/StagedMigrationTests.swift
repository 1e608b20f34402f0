import Foundation
import Strata
import StrataTestSupport
import Testing

/// Staged migration (Core Data's `NSStagedMigrationManager`, iOS 17 / macOS 14: "applies
/// those stages, in the order you specify"; a custom stage's `willMigrateHandler` runs before
/// the stage with the store at the current model, `didMigrateHandler` after it at the next
/// model, both reaching the store through the manager's `container`).
@Suite("Staged migration")
struct StagedMigrationTests {
    /// Four versions of a Person model:
    /// v1 `name` (optional); v2 adds `age`; v3 makes `name` required (no default: nils must be
    /// filled first); v4 adds `nickname`, filled from `name` after the step.
    static func model(_ version: Int) -> ManagedObjectModel {
        let person = EntityDescription(name: "Person")
        var properties: [PropertyDescription] = [AttributeDescription(name: "name", type: .string, isOptional: version < 3)]
        if version >= 2 { properties.append(AttributeDescription(name: "age", type: .integer64)) }
        if version >= 4 { properties.append(AttributeDescription(name: "nickname", type: .string)) }
        person.properties = properties
        return ManagedObjectModel(entities: [person])
    }

    static func makeStore(at url: URL, version: Int, names: [String?]) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model(version))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            for name in names {
                let person = ManagedObject(entity: try #require(coordinator.managedObjectModel.entitiesByName["Person"]), insertInto: context)
                person.setValue(name, forKey: "name")
            }
            try context.save()
        }
        try coordinator.remove(store)
    }

    /// The stages v1 → v2 (lightweight), v2 → v3 (fill nil names first), v3 → v4 (fill nicknames after).
    static func stages(_ models: [ManagedObjectModel], failAfterNicknames: Bool = false) -> (StagedMigrationManager, Log) {
        let log = Log()
        let fillNames = CustomMigrationStage(
            migratingFrom: ManagedObjectModelReference(model: models[1], versionChecksum: models[1].versionChecksum),
            to: ManagedObjectModelReference(model: models[2], versionChecksum: models[2].versionChecksum))
        fillNames.label = "fill names"
        fillNames.willMigrateHandler = { manager, _ in
            log.add("will fill names")
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                let request = FetchRequest<ManagedObject>(entityName: "Person")
                request.predicate = ObjectPredicate(format: "name == nil")
                for person in try context.fetch(request) { person.setValue("unknown", forKey: "name") }
                try context.save()
            }
        }
        let nicknames = CustomMigrationStage(
            migratingFrom: ManagedObjectModelReference(model: models[2], versionChecksum: models[2].versionChecksum),
            to: ManagedObjectModelReference(model: models[3], versionChecksum: models[3].versionChecksum))
        nicknames.didMigrateHandler = { manager, _ in
            log.add("did add nicknames")
            let context = try #require(manager.container).newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    person.setValue((person.value(forKey: "name") as? String)?.uppercased(), forKey: "nickname")
                }
                try context.save()
            }
            if failAfterNicknames { throw StrataError(code: StrataError.Code.migration, message: "the test's handler fails") }
        }
        let manager = StagedMigrationManager([
            LightweightMigrationStage([models[0].versionChecksum, models[1].versionChecksum]), fillNames, nicknames,
        ])
        return (manager, log)
    }

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    static func names(at url: URL, model: ManagedObjectModel) throws -> [[String?]] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = [ObjectSortDescriptor(key: "name", ascending: true)]
            let keys = model.entitiesByName["Person"]?.attributesByName.keys.contains("nickname") == true ? ["name", "nickname"] : ["name"]
            return try context.fetch(request).map { person in keys.map { person.value(forKey: $0) as? String } }
        }
    }

    @Test("a store three versions old walks every stage in order, handlers on the right model")
    func walksEveryStage() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 1, names: ["ada", nil, "grace"])
        let models = (1...4).map(Self.model)
        let (manager, log) = Self.stages(models)
        let container = PersistentContainer(name: "People", managedObjectModel: models[3])
        let description = PersistentStoreDescription(url: url)
        description.setOption(manager, forKey: PersistentStoreOption.stagedMigrationManager)
        // v1 is named only by its checksum in the lightweight stage: the model comes from here
        // (or from the model's .xcdatamodeld bundle).
        description.setOption([models[0]], forKey: PersistentStoreOption.migrationSourceModels)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        #expect(log.all == ["will fill names", "did add nicknames"])
        #expect(manager.container == nil)
        let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
        try container.persistentStoreCoordinator.remove(store)
        #expect(try Self.names(at: url, model: models[3]) == [["ada", "ADA"], ["grace", "GRACE"], ["unknown", "UNKNOWN"]])
    }

    @Test("a store at a middle version walks only the stages after it")
    func startsAtTheStoresVersion() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 3, names: ["linus"])
        let models = (1...4).map(Self.model)
        let (manager, log) = Self.stages(models)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: models[3])
        _ = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: manager, PersistentStoreOption.migrationSourceModels: models])
        #expect(log.all == ["did add nicknames"])
    }

    // "Each stage is atomic": a did-handler that throws leaves the store at the version before
    // the stage, with no trace of the handler's own saves.
    @Test("a failing custom stage leaves the store at the stage's start, complete")
    func failingStageIsAtomic() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 1, names: ["ada", nil])
        let models = (1...4).map(Self.model)
        let (manager, _) = Self.stages(models, failAfterNicknames: true)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: models[3])
        #expect(throws: StrataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: manager, PersistentStoreOption.migrationSourceModels: models])
        }
        #expect(coordinator.persistentStores.isEmpty)
        // The stages before the failing one are done; the failing one left nothing behind.
        #expect(try Self.names(at: url, model: models[2]) == [["ada"], ["unknown"]])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(".strata-migration-") }
        #expect(leftovers.isEmpty)
    }

    // A staged migration's custom stage works on a copy and swaps it in: the reliability
    // harness's migration crash loop killed a migration between the swap (a rename) and the
    // removal of the workspace folder, and the next open found the store current and left the
    // folder. "Each stage is atomic": the store was complete; the folder is debris.
    @Test("opening a current store removes a workspace whose swap was done, and keeps one still holding a store")
    func finishedWorkspaceRemovedOnOpen() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 4, names: ["ada"])
        let models = (1...4).map(Self.model)
        let (manager, log) = Self.stages(models)
        let prefix = ".strata-migration-People.sqlite-"
        // A finished workspace holds only links to external data (here: an empty support
        // folder); an unfinished one still holds its copy of the store.
        let finished = folder.url.appendingPathComponent(prefix + "FINISHED", isDirectory: true)
        try FileManager.default.createDirectory(at: finished.appendingPathComponent(".People_SUPPORT/_EXTERNAL_DATA"), withIntermediateDirectories: true)
        let running = folder.url.appendingPathComponent(prefix + "RUNNING", isDirectory: true)
        try FileManager.default.createDirectory(at: running, withIntermediateDirectories: false)
        try Data("copy".utf8).write(to: running.appendingPathComponent("People.sqlite"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: models[3])
        _ = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: manager, PersistentStoreOption.migrationSourceModels: models])
        #expect(log.all.isEmpty)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix(prefix) }
        #expect(left == [prefix + "RUNNING"])
    }

    // Core Data infers optional → required; instances without a value fail validation (1570),
    // which is why its documentation fills them in a willMigrateHandler.
    @Test("a lightweight step making an attribute required fails with 1570 while instances lack it, the store unchanged")
    func requiredWithoutValueFails() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 2, names: ["ada", nil])
        let models = (1...4).map(Self.model)
        let manager = StagedMigrationManager([LightweightMigrationStage([Self.model(2).versionChecksum, Self.model(3).versionChecksum])])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model(3))
        let error = try #require(throws: StrataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: manager, PersistentStoreOption.migrationSourceModels: models])
        }
        func chain(_ error: StrataError) -> [StrataError] { [error] + error.underlyingErrors.flatMap(chain) }
        let reasons = chain(error)
        #expect(reasons.contains { $0.code == StrataError.Code.validationMissingMandatoryProperty && $0.message.contains("Person.name") && $0.message.contains("1 instance") })
        #expect(try Self.names(at: url, model: Self.model(2)) == [[nil], ["ada"]])
    }

    @Test("stages that do not chain, or end elsewhere than the model, are refused before anything runs")
    func badStagesAreRefused() throws {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let url = folder.file("People.sqlite")
        try Self.makeStore(at: url, version: 1, names: ["ada"])
        let models = (1...4).map(Self.model)
        let gap = StagedMigrationManager([
            LightweightMigrationStage([models[0].versionChecksum, models[1].versionChecksum]),
            LightweightMigrationStage([models[2].versionChecksum, models[3].versionChecksum]),
        ])
        let coordinator = PersistentStoreCoordinator(managedObjectModel: models[3])
        let error = try #require(throws: StrataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: gap])
        }
        #expect(error.message.contains("do not chain"))
        let short = StagedMigrationManager([LightweightMigrationStage([models[0].versionChecksum, models[1].versionChecksum])])
        let ends = try #require(throws: StrataError.self) {
            try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.stagedMigrationManager: short])
        }
        #expect(ends.message.contains("ends at version"))
        #expect(try Self.names(at: url, model: models[0]) == [["ada"]])
    }

    @Test("a model reference whose model has another checksum is an error naming both")
    func referenceChecksumIsChecked() throws {
        let reference = ManagedObjectModelReference(model: Self.model(2), versionChecksum: Self.model(1).versionChecksum)
        let error = try #require(throws: StrataError.self) { try reference.resolvedModel() }
        #expect(error.message.contains(Self.model(1).versionChecksum) && error.message.contains(Self.model(2).versionChecksum))
    }
}
