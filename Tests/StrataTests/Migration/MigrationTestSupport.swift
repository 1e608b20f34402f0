import Foundation
import Strata
import StrataTestSupport

/// Opening SQLite stores of model versions, seeding them and reading them back, for the
/// migration tests.
enum MigrationHarness {
    /// The options of an automatic, inferred migration (what a container passes by default).
    static let automatic: [String: any Sendable] = [
        PersistentStoreOption.migratePersistentStoresAutomatically: true, PersistentStoreOption.inferMappingModelAutomatically: true,
    ]

    /// A coordinator with the SQLite store at `url` added with `options`.
    static func coordinator(_ model: ManagedObjectModel, at url: URL, options: [String: any Sendable] = [:]) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
        return coordinator
    }

    /// A root private-queue context on `coordinator`.
    static func context(_ coordinator: PersistentStoreCoordinator) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    /// Runs `body` with a new context on a coordinator of `model` at `url`, then closes the store.
    static func with<T>(_ model: ManagedObjectModel, at url: URL, options: [String: any Sendable] = [:], _ body: (ManagedObjectContext) throws -> T) throws -> T {
        let coordinator = try coordinator(model, at: url, options: options)
        defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
        let context = context(coordinator)
        return try context.performAndWait { try body(context) }
    }

    /// Every object of `entity` (sub-entities' too unless `exact`), sorted by `key`.
    static func objects(_ entity: String, in context: ManagedObjectContext, sortedBy key: String? = nil, exact: Bool = false) throws -> [ManagedObject] {
        let request = FetchRequest<ManagedObject>(entityName: entity)
        if let key { request.sortDescriptors = [ObjectSortDescriptor(key: key, ascending: true)] }
        request.includesSubentities = !exact
        return try context.fetch(request)
    }

    /// The string values of `key` of `objects`' members of `relationship`, sorted.
    static func names(_ object: ManagedObject, _ relationship: String, _ key: String) -> [String] {
        let value = object.value(forKey: relationship)
        if let set = value as? Set<ManagedObject> { return set.compactMap { $0.value(forKey: key) as? String }.sorted() }
        if let object = value as? ManagedObject { return [object.value(forKey: key) as? String].compactMap { $0 } }
        return []
    }

    /// A model read from model-file XML (the `<entity>` elements), not from a bundle.
    static func model(_ entities: String, scratch: ModelFileScratch, name: String) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: scratch.writeVersion(ModelFileScratch.model(entities), name: name))
    }
}
