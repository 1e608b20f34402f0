import Foundation
import Strata
import StrataTestSupport

/// Building small model versions and stores for the custom-migration tests.
enum MigrationFixture {
    /// An entity with `properties`.
    static func entity(_ name: String, _ properties: [PropertyDescription]) -> EntityDescription {
        let entity = EntityDescription(name: name)
        entity.properties = properties
        return entity
    }

    /// An optional string attribute.
    static func string(_ name: String, optional: Bool = true) -> AttributeDescription {
        AttributeDescription(name: name, type: .string, isOptional: optional, defaultValue: optional ? nil : "")
    }

    /// A new SQLite store at `url` with `model`, filled by `fill` and saved, then closed.
    static func makeStore(model: ManagedObjectModel, at url: URL, _ fill: (ManagedObjectContext) throws -> Void) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            try fill(context)
            try context.save()
            context.reset()
        }
        try coordinator.remove(store)
    }

    /// Opens the store at `url` with `model` (read-only), runs `body` on a context's queue, and
    /// closes the store.
    static func read<T>(model: ManagedObjectModel, at url: URL, _ body: (ManagedObjectContext) throws -> T) throws -> T {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.readOnly: true])
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return try context.performAndWait {
            defer { context.reset() }
            return try body(context)
        }
    }

    /// Every object of `entityName`, sorted by `key`.
    static func fetch(_ entityName: String, in context: ManagedObjectContext, sortedBy key: String? = nil) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: entityName)
        if let key { request.sortDescriptors = [ObjectSortDescriptor(key: key, ascending: true)] }
        return try context.fetch(request)
    }

    /// Inserts an object of `entityName` with `values`.
    @discardableResult
    static func insert(_ entityName: String, _ values: [String: Any?], into context: ManagedObjectContext) throws -> ManagedObject {
        let object = try EntityDescription.insertNewObject(forEntityName: entityName, into: context)
        for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
        return object
    }

    /// A property mapping from an expression format.
    static func map(_ name: String, _ format: String) -> PropertyMapping {
        PropertyMapping(name: name, valueExpression: ObjectExpression(format: format))
    }

    /// The bytes of the store files at `url` (main file and WAL), to show a source is untouched.
    static func fileBytes(at url: URL) -> [Data?] {
        [url.path, url.path + "-wal"].map { FileManager.default.contents(atPath: $0) }
    }

    /// Whether any file of a store at `url` exists.
    static func anyStoreFileExists(at url: URL) -> Bool {
        ["", "-wal", "-shm", "-journal"].contains { FileManager.default.fileExists(atPath: url.path + $0) }
    }
}
