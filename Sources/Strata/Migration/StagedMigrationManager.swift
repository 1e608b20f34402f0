import Foundation

/// Migrates a store through a list of stages, in order, when it is added (Core Data's
/// `NSStagedMigrationManager`).
///
/// ```swift
/// let stages: [MigrationStage] = [
///     LightweightMigrationStage([v1.versionChecksum, v2.versionChecksum]),
///     fillNamesStage,   // a CustomMigrationStage from v2 to v3 with handlers
///     LightweightMigrationStage([v3.versionChecksum, v4.versionChecksum]),
/// ]
/// description.setOption(StagedMigrationManager(stages), forKey: PersistentStoreOption.stagedMigrationManager)
/// try container.loadPersistentStores()
/// ```
///
/// When the store is added, the manager finds the store's version among the stages' versions
/// (by the entity version hashes in its metadata) and walks every later step in order: a step
/// inside a ``LightweightMigrationStage`` is one lightweight migration in place (one SQLite
/// transaction); a ``CustomMigrationStage`` runs its handlers and its step on a copy of the store
/// that replaces the store only when the whole stage succeeded. A crash or an error therefore
/// leaves the store at the version it had before the stage that failed, complete. The last
/// version of the last stage must be the container's model. Stages must chain: each stage
/// starts at the version the previous one ends at.
///
/// Handlers reach the store through ``container``. The manager is used by one migration at a
/// time (the thread adding the store); configure it before loading. See
/// docs/models-and-migration.md ("Staged migration").
public final class StagedMigrationManager: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: configured before the migration; `container` is set and read only on
    // the migrating thread, under `lock` so that a handler on another thread sees it.
    /// The stages, in the order they run.
    public let stages: [MigrationStage]
    private let lock = NSLock()
    nonisolated(unsafe) private var currentContainer: PersistentContainer?

    /// A manager that runs `stages` in order.
    public init(_ stages: [MigrationStage]) {
        self.stages = stages
    }

    /// While a custom stage's handler runs, a container whose only store is the migrating store,
    /// opened with the stage's current model (in `willMigrateHandler`) or next model (in
    /// `didMigrateHandler`); `nil` otherwise. Use its `newBackgroundContext()` (with
    /// `performAndWait`) to read and change data, and save before the handler returns.
    public var container: PersistentContainer? {
        lock.lock()
        defer { lock.unlock() }
        return currentContainer
    }

    func setContainer(_ container: PersistentContainer?) {
        lock.lock()
        currentContainer = container
        lock.unlock()
    }

    public var description: String {
        "<StagedMigrationManager \(stages.count) stages>"
    }
}
