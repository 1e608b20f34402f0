import Foundation
import StrataLocks

/// Migrates a store from one model version to another by copying its objects through a
/// ``MappingModel`` into a new store (Core Data's `NSMigrationManager`).
///
/// ```swift
/// let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
/// try manager.migrateStore(from: oldURL, type: .sqlite, mapping: mapping, to: newURL, type: .sqlite)
/// ```
///
/// `migrateStore` runs the three passes of Core Data's custom migration (instances, then
/// relationships, then validation) on the calling thread and returns when the destination
/// store is complete; on any error it removes the destination and leaves the source
/// untouched. A manager runs one migration at a time. Its members are meant for the policies
/// it calls (on the migrating thread); ``migrationProgress``, ``progress`` and
/// ``cancelMigrationWithError(_:)`` may be used from any thread. See
/// docs/models-and-migration.md, "Custom migration".
open class MigrationManager: @unchecked Sendable {
    // @unchecked Sendable: the migration state is used on the migrating thread only; the
    // cancellation error and the progress, read from other threads, are behind `shared`.
    /// The model of the source store.
    public let sourceModel: ManagedObjectModel
    /// The model of the destination store.
    public let destinationModel: ManagedObjectModel
    /// The mapping model of the running (or last) migration.
    public internal(set) var mappingModel: MappingModel?
    /// The private-queue context on the source store (read-only) during a migration, `nil`
    /// otherwise. Policies use it on the migrating thread without `perform`.
    public internal(set) var sourceContext: ManagedObjectContext?
    /// The private-queue context on the new destination store during a migration, `nil`
    /// otherwise. Policies insert into it on the migrating thread without `perform`.
    public internal(set) var destinationContext: ManagedObjectContext?
    /// The entity mapping being run, `nil` between migrations.
    public internal(set) var currentEntityMapping: EntityMapping?
    /// Application data for the policies of a migration (Core Data's `userInfo`).
    public var userInfo: [AnyHashable: Any] = [:]
    /// How many destination instances are created (and, in the relationship pass, changed)
    /// between two saves of the destination store, to bound memory; `0` saves once, at the end.
    /// Objects are validated before the last save either way. Default 1000.
    public var saveBatchSize = 1000
    /// Called on the migrating thread each time ``migrationProgress`` grows, with its new value.
    public var progressHandler: ((Float) -> Void)?
    /// The migration's progress: one unit per source instance in the instance pass, as many in
    /// the relationship pass, one per entity mapping for validation. Readable from any thread.
    public let progress = Progress(totalUnitCount: 1)

    /// The associations of the running migration.
    var associations = MigrationAssociations()
    /// The policies of the running migration, by entity mapping name.
    var policies: [String: EntityMigrationPolicy] = [:]
    /// Destination changes since the last batch save.
    var unsavedChanges = 0
    let shared = StrataLock<SharedState>(SharedState())

    /// What other threads may read or set during a migration.
    struct SharedState {
        var cancellation: (any Error)?
        var running = false
        var completed: Int64 = 0
        var total: Int64 = 1
    }

    /// Creates a manager for migrating stores of `sourceModel` to `destinationModel`.
    /// Callable from any thread.
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// How far the running (or last) migration is, from 0 to 1, never decreasing during a
    /// migration; 1 once it has succeeded. Readable from any thread.
    public var migrationProgress: Float {
        shared.withLock { state in state.total > 0 ? Float(Double(state.completed) / Double(state.total)) : 0 }
    }

    /// Stops the running migration at the next instance: `migrateStore` then throws `error`
    /// (a ``StrataError`` as it is; any other error inside one with code 134120), the
    /// destination store is removed and the source is untouched. Callable from any thread and
    /// from a policy.
    public func cancelMigrationWithError(_ error: any Error) {
        shared.withLock { state in
            if state.cancellation == nil { state.cancellation = error }
        }
    }

    // MARK: Associations

    /// Records that `mapping` made `destinationInstance` from `sourceInstance`, so that the
    /// relationship pass and the lookups below find one from the other. Call from a policy,
    /// on the migrating thread.
    public func associate(sourceInstance: ManagedObject, withDestinationInstance destinationInstance: ManagedObject, for mapping: EntityMapping) {
        associations.associate(source: sourceInstance.objectID, destination: destinationInstance, mappingName: mapping.name)
    }

    /// The source instances from which the entity mapping `mappingName` made
    /// `destinationInstances` (all of that mapping's source instances when `nil`), in the order
    /// they were associated. Call on the migrating thread.
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [ManagedObject]?) -> [ManagedObject] {
        guard let context = sourceContext else { return [] }
        let ids = associations.sourceIDs(mappingName: mappingName, destinations: destinationInstances)
        return ids.map { context.object(with: $0) }
    }

    /// The destination instances the entity mapping `mappingName` made from
    /// `sourceInstances` (all of that mapping's destination instances when `nil`), in the
    /// order of the sources and then of association. Call on the migrating thread.
    public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [ManagedObject]?) -> [ManagedObject] {
        guard let context = destinationContext else { return [] }
        return associations.destinations(mappingName: mappingName, sources: sourceInstances?.map(\.objectID), in: context)
    }

    // MARK: Progress and cancellation (internal)

    func resetProgress(total: Int64) {
        shared.withLock { state in
            state.completed = 0
            state.total = max(total, 1)
            state.cancellation = nil
        }
        progress.totalUnitCount = max(total, 1)
        progress.completedUnitCount = 0
    }

    func advanceProgress(by units: Int64) {
        guard units > 0 else { return }
        let value = shared.withLock { state -> Float in
            state.completed = min(state.completed + units, state.total)
            return Float(Double(state.completed) / Double(state.total))
        }
        progress.completedUnitCount = min(progress.completedUnitCount + units, progress.totalUnitCount)
        progressHandler?(value)
    }

    func finishProgress() {
        let remaining = shared.withLock { $0.total - $0.completed }
        advanceProgress(by: remaining)
    }

    /// Throws the cancellation error if ``cancelMigrationWithError(_:)`` was called.
    func checkCancellation() throws {
        guard let error = shared.withLock({ $0.cancellation }) else { return }
        if let strata = error as? StrataError { throw strata }
        throw StrataError(code: StrataError.Code.migrationCancelled, message: "The migration was cancelled: \(error)")
    }
}
