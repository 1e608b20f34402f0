import Foundation

/// Something that migrates a store file before the coordinator opens it: the
/// `StagedMigrationManager` given with ``PersistentStoreOption/stagedMigrationManager``. Kept as
/// a protocol here so that the coordinator does not name the migration layer above it.
protocol StoreMigrationStep: AnyObject, Sendable {
    /// Migrates the SQLite store at `url` to `model`, or does nothing when it is new or
    /// current. Runs on the thread adding the store, before the store is opened.
    func migrateStore(at url: URL, options: [String: any Sendable], to model: ManagedObjectModel) throws
}

extension PersistentStoreOption {
    /// `StagedMigrationManager`: migrate the store through the manager's stages when it is added
    /// (Core Data's `NSPersistentStoreStagedMigrationManagerOptionKey`). SQLite stores only; a
    /// read-only store is never migrated. See docs/models-and-migration.md ("Staged migration").
    public static let stagedMigrationManager = "NSPersistentStoreStagedMigrationManagerOptionKey"
}

extension PersistentStoreCoordinator {
    /// Runs the staged migration given in `options`, if any, on the store file at `url`.
    func runMigrationStep(type: StoreType, url: URL?, options: [String: any Sendable]) throws {
        guard let step = options[PersistentStoreOption.stagedMigrationManager] as? any StoreMigrationStep else { return }
        guard let url, type == .sqlite else {
            throw StrataError(
                code: StrataError.Code.migration, message: "A staged migration manager was given for a \(type.rawValue) store: only SQLite stores are migrated", url: url)
        }
        if options[PersistentStoreOption.readOnly] as? Bool ?? false {
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            let metadata = try Self.metadataForPersistentStore(type: .sqlite, at: url)
            guard managedObjectModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else {
                throw StrataError(code: StrataError.Code.migration, message: "The store is read-only and needs a migration: add it writable once to migrate it", url: url)
            }
            return
        }
        try step.migrateStore(at: url, options: options, to: managedObjectModel)
    }
}
