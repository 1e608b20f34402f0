import Foundation

/// One step of a staged migration (Core Data's `NSMigrationStage`): use
/// ``LightweightMigrationStage`` or ``CustomMigrationStage``, never this class itself.
/// Configure stages before handing them to a ``StagedMigrationManager``; any thread.
open class MigrationStage: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: configured on one thread before the migration, read during it.
    /// A description of the stage's purpose, shown in errors and logs.
    public var label: String?

    init() {}

    /// The model version checksums the stage walks, in order.
    var checksums: [String] { [] }

    public var description: String {
        "<\(type(of: self)) \(label ?? "")>"
    }
}

/// A series of model versions, each migrating to the next lightweight (Core Data's
/// `NSLightweightMigrationStage`). The versions are named by their
/// ``ManagedObjectModel/versionChecksum``; the models themselves are found among the versions of
/// the `.xcdatamodeld` bundle the container's model was read from, the models of the manager's
/// custom stages, and the models given with
/// `PersistentStoreOption.migrationSourceModels`. Any thread.
public final class LightweightMigrationStage: MigrationStage, @unchecked Sendable {
    /// The version checksums, oldest first.
    public let versionChecksums: [String]

    /// A stage over the model versions with these checksums, oldest first.
    public init(_ versionChecksums: [String]) {
        self.versionChecksums = versionChecksums
        super.init()
    }

    override var checksums: [String] { versionChecksums }
}

/// A migration between two model versions that Core Data could not infer alone, with handlers
/// that run before and after it (Core Data's `NSCustomMigrationStage`). The step between the
/// two models itself is lightweight (an inferred mapping); `willMigrateHandler` prepares the
/// data with the store open at ``currentModel`` (e.g. fills `nil`s before an attribute becomes
/// required), and `didMigrateHandler` finishes it with the store open at ``nextModel`` (e.g.
/// fills a new attribute from old ones). Both reach the store through the manager's
/// ``StagedMigrationManager/container``; they run on the migrating thread. The whole stage —
/// both handlers and the step — is atomic: it runs on a copy that replaces the store only when
/// all of it succeeded.
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    /// The model version the stage migrates from.
    public let currentModel: ManagedObjectModelReference
    /// The model version the stage migrates to.
    public let nextModel: ManagedObjectModelReference
    /// Runs before the step, with the store open at ``currentModel``.
    public var willMigrateHandler: ((StagedMigrationManager, CustomMigrationStage) throws -> Void)?
    /// Runs after the step, with the store open at ``nextModel``.
    public var didMigrateHandler: ((StagedMigrationManager, CustomMigrationStage) throws -> Void)?

    /// A stage from `currentModel` to `nextModel`.
    public init(migratingFrom currentModel: ManagedObjectModelReference, to nextModel: ManagedObjectModelReference) {
        self.currentModel = currentModel
        self.nextModel = nextModel
        super.init()
    }

    override var checksums: [String] { [currentModel.versionChecksum, nextModel.versionChecksum] }
}
