import Foundation

/// The whole stack in one object: model, coordinator, stores and contexts (Core Data's
/// `NSPersistentContainer`).
///
/// ```swift
/// let container = PersistentContainer(name: "People", managedObjectModel: model)
/// try container.loadPersistentStores()
/// try await container.performBackgroundTask { context in … try context.save() }
/// ```
public final class PersistentContainer: @unchecked Sendable {
    // @unchecked Sendable: `persistentStoreDescriptions` is configured before loading (one
    // thread); everything else is immutable or Sendable.
    /// The container's name; the default store file is `<name>.sqlite`.
    public let name: String
    /// The model.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores to add; by default one SQLite file `<name>.sqlite` in
    /// ``defaultDirectoryURL()``.
    public var persistentStoreDescriptions: [PersistentStoreDescription]
    /// The main-queue context, for the UI side of an app. Its blocks run when the main thread
    /// services the main queue; on the main thread it may be used directly.
    public let viewContext: ManagedObjectContext

    /// Creates a container for `model`.
    public init(name: String, managedObjectModel model: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model, name: name)
        let description = PersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        self.persistentStoreDescriptions = [description]
        self.viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        viewContext.name = "viewContext"
    }

    /// The folder of default store files: `$STRATA_STORE_DIRECTORY` if set, else
    /// `~/.local/share/strata` (`$XDG_DATA_HOME/strata`).
    public class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["STRATA_STORE_DIRECTORY"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("strata", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/strata", isDirectory: true)
    }

    /// Adds every described store, in order; throws the first failure (stores added before it
    /// stay added). Callable from any thread.
    public func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try add(description)
        }
    }

    /// Adds every described store and calls `completion` once per store with its description
    /// and the error, if any (Core Data's form).
    public func loadPersistentStores(completionHandler completion: (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                try add(description)
                completion(description, nil)
            } catch {
                completion(description, error)
            }
        }
    }

    private func add(_ description: PersistentStoreDescription) throws {
        var options = description.options
        if !description.sqlitePragmas.isEmpty { options[PersistentStoreOption.sqlitePragmas] = description.sqlitePragmas }
        try persistentStoreCoordinator.addPersistentStore(type: description.type, configuration: description.configuration, at: description.url, options: options)
    }

    /// A new private-queue root context on the container's coordinator. Callable from any thread.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new background context's queue (without waiting).
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new background context's queue and returns its result.
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
