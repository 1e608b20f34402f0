import StrataLocks

/// The store classes by type: what `addPersistentStore(type:…)` instantiates. `.sqlite` and
/// `.inMemory` are built in; apps add theirs with `registerStoreClass(_:forStoreType:)`.
extension PersistentStoreCoordinator {
    private static let registeredStoreClasses = StrataLock<[String: IncrementalStore.Type]>([
        StoreType.sqlite.rawValue: SQLiteStore.self,
        StoreType.inMemory.rawValue: InMemoryStore.self,
    ])

    /// Registers `storeClass` for `type` (Core Data's `registerStoreClass(_:type:)`), or with
    /// `nil` removes the registration; later `addPersistentStore(type:…)` calls of every
    /// coordinator create stores of that class. Re-registering a type replaces its class,
    /// built-in types included. Callable from any thread.
    public static func registerStoreClass(_ storeClass: IncrementalStore.Type?, forStoreType type: StoreType) {
        registeredStoreClasses.withLock { $0[type.rawValue] = storeClass }
    }

    /// The class registered for `type`, if any. Callable from any thread.
    public static func storeClass(forStoreType type: StoreType) -> IncrementalStore.Type? {
        registeredStoreClasses.withLock { $0[type.rawValue] }
    }
}
