import Foundation

/// Trying a lightweight migration without touching the store.
extension PersistentStoreCoordinator {
    /// Reports what a lightweight migration of the store at `url` to `model` would do, without
    /// changing the store: the store is copied (with SQLite's `VACUUM INTO`, which includes the
    /// committed pages of its WAL) into a temporary folder, the copy is migrated in place exactly
    /// as adding the store with automatic migration would, the report is read from it and the
    /// copy is deleted. The source model is found as for automatic migration: a version of the
    /// bundle `model` was read from, or a model of `PersistentStoreOption.migrationSourceModels`
    /// in `options`, whose version hash is the store's. A store already made with `model` gives
    /// a report whose `isMigrationNeeded` is false.
    ///
    /// Throws 134000 for a type other than `.sqlite`; 134080 (underlying 134100) when no source
    /// model is found; 134190 when no mapping can be inferred; 134110 when the migration of the
    /// copy fails (then the real one would fail too). Strata's addition (Core Data has no dry
    /// run). Runs on the calling thread; callable from any thread, with the store added or not.
    public static func dryRunMigration(
        ofStoreAt url: URL, type: StoreType = .sqlite, options: [String: any Sendable]? = nil, to model: ManagedObjectModel
    ) throws -> MigrationReport {
        guard type == .sqlite else {
            throw StrataError(code: StrataError.Code.persistentStoreInvalidType, message: "Only SQLite stores are migrated in place", url: url)
        }
        return try SQLiteStore.dryRunMigration(at: url, options: options ?? [:], to: model)
    }
}
