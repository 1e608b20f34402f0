import Strata

extension StoreType {
    /// A PostgreSQL database shared by several app servers (``PostgreSQLStore``). The store's URL
    /// is a libpq connection URI, `postgresql://user:password@host:port/database`; the password
    /// never appears in errors or descriptions.
    ///
    /// The first access registers ``PostgreSQLStore`` with
    /// `PersistentStoreCoordinator.registerStoreClass(_:forStoreType:)`, so that
    /// `addPersistentStore(type: .postgreSQL, at: url)` and a `PersistentStoreDescription` of
    /// this type work after `import StrataPostgreSQLStore`. Thread-safe: the registration runs
    /// once (a `static let` is initialized once, under a lock), whichever thread asks first.
    public static var postgreSQL: StoreType { PostgreSQLStore.registeredType }
}

extension PostgreSQLStore {
    /// The store type's name, as recorded in the store's metadata (``StoreMetadataKey/storeType``).
    public static let typeName = "PostgreSQL"

    /// `.postgreSQL`, registered with the coordinator on first use (see ``StoreType/postgreSQL``).
    /// Thread-safe (lazily initialized once).
    static let registeredType: StoreType = {
        let type = StoreType(rawValue: typeName)
        PersistentStoreCoordinator.registerStoreClass(PostgreSQLStore.self, forStoreType: type)
        return type
    }()
}
