import Foundation

/// The whole stack in one object: model, coordinator, stores and contexts (Core Data's
/// `NSPersistentContainer`).
///
/// ```swift
/// let container = PersistentContainer(name: "People", managedObjectModel: model)
/// try container.loadPersistentStores()
/// try await container.performBackgroundTask { context in … try context.save() }
/// ```
///
/// As in Core Data, the class is meant to be subclassed: a subclass is the place for an app's
/// Core Data helpers, and may override ``defaultDirectoryURL()`` (where the default store file
/// goes), ``loadPersistentStores(completionHandler:)``, ``newBackgroundContext()`` and the
/// other `open` members.
///
/// ```swift
/// final class AppContainer: PersistentContainer, @unchecked Sendable {
///     func saveContext(backgroundContext: ManagedObjectContext? = nil) {
///         let context = backgroundContext ?? viewContext
///         context.performAndWait {
///             guard context.hasChanges else { return }
///             do { try context.save() } catch { print("Error: \(error)") }
///         }
///     }
/// }
/// ```
open class PersistentContainer: @unchecked Sendable {
    // @unchecked Sendable: `persistentStoreDescriptions` is configured before loading (one
    // thread); everything else is immutable or Sendable. A subclass that adds mutable state
    // takes on the same rule for it.
    /// The container's name; the default store file is `<name>.sqlite`.
    /// Immutable: read it from any thread.
    public let name: String
    /// The model. Immutable: read it from any thread.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator. Immutable: read it from any thread.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores to add; by default one SQLite file `<name>.sqlite` in
    /// ``defaultDirectoryURL()`` (the subclass's, when it overrides it).
    /// Set it on one thread before ``loadPersistentStores()``, and leave it unchanged after.
    open var persistentStoreDescriptions: [PersistentStoreDescription]
    /// The main-queue context, for the UI side of an app. Its blocks run when the main thread
    /// services the main queue; on the main thread it may be used directly.
    public let viewContext: ManagedObjectContext

    /// Creates a container for `model`, with one store description: a SQLite file
    /// `<name>.sqlite` in ``defaultDirectoryURL()`` (a subclass's override is used). Nothing is
    /// opened until ``loadPersistentStores()``. Callable from any thread.
    public init(name: String, managedObjectModel model: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: model, name: name)
        let description = PersistentStoreDescription(url: Self.defaultStoreURL(name: name))
        self.persistentStoreDescriptions = [description]
        self.viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        viewContext.name = "viewContext"
    }

    /// The folder of default store files: `$STRATA_STORE_DIRECTORY` if set, else
    /// `$XDG_DATA_HOME/strata`, else `~/.local/share/strata` (Core Data uses the app's
    /// Application Support folder). Override it in a subclass to put the default store
    /// elsewhere. The folder is created when the store is loaded. Callable from any thread.
    open class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["STRATA_STORE_DIRECTORY"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("strata", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/strata", isDirectory: true)
    }

    /// The default store file of a container named `name`: `<name>.sqlite` in this class's
    /// ``defaultDirectoryURL()``.
    private class func defaultStoreURL(name: String) -> URL {
        defaultDirectoryURL().appendingPathComponent("\(name).sqlite")
    }

    /// Adds every described store, in order; throws the first failure (stores added before it
    /// stay added). A SQLite description without a URL gets the default file
    /// (`<name>.sqlite` in ``defaultDirectoryURL()``), written back to the description.
    /// Callable from any thread.
    open func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try add(description)
        }
    }

    /// Adds every described store and calls `completion` once per store with its description
    /// and the error, if any (Core Data's form). Stores load in order on the calling thread,
    /// and each `completion` call happens before this method returns. Callable from any thread.
    open func loadPersistentStores(completionHandler completion: (PersistentStoreDescription, (any Error)?) -> Void) {
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
        if description.url == nil && description.type == .sqlite {
            description.url = Self.defaultStoreURL(name: name)
        }
        var options = description.options
        if !description.sqlitePragmas.isEmpty { options[PersistentStoreOption.sqlitePragmas] = description.sqlitePragmas }
        options[PersistentStoreOption.migratePersistentStoresAutomatically] = description.shouldMigrateStoreAutomatically
        options[PersistentStoreOption.inferMappingModelAutomatically] = description.shouldInferMappingModelAutomatically
        try persistentStoreCoordinator.addPersistentStore(type: description.type, configuration: description.configuration, at: description.url, options: options)
    }

    /// A new private-queue root context on the container's coordinator. Callable from any thread.
    open func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new background context's queue (without waiting). The context comes
    /// from ``newBackgroundContext()`` (a subclass's override is used). Callable from any thread.
    open func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs `block` on a new background context's queue and returns its result. The context
    /// comes from ``newBackgroundContext()``. Callable from any thread or task.
    open func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
