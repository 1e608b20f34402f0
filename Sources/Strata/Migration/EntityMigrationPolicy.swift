import Foundation

/// Customizes how a ``MigrationManager`` migrates the instances of one entity mapping (Core
/// Data's `NSEntityMigrationPolicy`).
///
/// The manager makes one policy per entity mapping, from the mapping's
/// `entityMigrationPolicyClass` (this class when it is `nil`), and calls its hooks in Core
/// Data's order: ``begin(_:with:)``, ``createDestinationInstances(forSource:in:manager:)`` for
/// each source instance, ``endInstanceCreation(forMapping:manager:)``; after every mapping has
/// created its instances, ``createRelationships(forDestination:in:manager:)`` for each
/// destination instance and ``endRelationshipCreation(forMapping:manager:)``; then
/// ``performCustomValidation(forMapping:manager:)`` and ``end(_:manager:)``.
///
/// Every hook runs on the thread that called `migrateStore`, inside blocks of both the
/// manager's `sourceContext` and `destinationContext`: read source objects and insert and
/// change destination objects directly, without `perform`. A hook that throws stops the
/// migration; the destination store is removed and the source is untouched.
/// See docs/models-and-migration.md, "Custom migration".
open class EntityMigrationPolicy {
    /// Creates a policy; the manager calls this once per entity mapping.
    public required init() {}

    /// Prepares the policy before the instances of `mapping` are created. Does nothing by
    /// default. Runs inside the migration (see the type's documentation).
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Creates the destination instance(s) for the source instance `sInstance` and associates
    /// them with it through ``MigrationManager/associate(sourceInstance:withDestinationInstance:for:)``.
    ///
    /// By default: inserts one instance of the mapping's destination entity into the
    /// destination context, sets each attribute that has a mapping with a value expression to
    /// the expression's value (with `$source` the source instance, `$manager`, `$entityMapping`
    /// and `$entityPolicy` bound), and associates it. Override to split, merge, filter or
    /// compute instances; calling `super` is optional. Runs inside the migration.
    open func createDestinationInstances(forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        guard let entityName = mapping.destinationEntityName else { return }
        let destination = try manager.insertDestinationInstance(ofEntityNamed: entityName, for: mapping)
        try manager.applyAttributeMappings(of: mapping, from: sInstance, to: destination, policy: self)
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Ends the instance-creation pass of `mapping`. Does nothing by default. Runs inside the
    /// migration.
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Sets the relationships of the destination instance `dInstance`, made by `mapping`.
    ///
    /// By default: for each relationship mapping with a value expression, evaluates it against
    /// the source instance associated with `dInstance` (`$source`, and `$destination` for
    /// `dInstance`); source objects in the result are replaced by the destination instances
    /// associated with them (through any mapping whose destination entity fits the
    /// relationship), destination objects are kept, and the relationship is set to them in the
    /// result's order (to-one: the first). Runs inside the migration.
    open func createRelationships(forDestination dInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager) throws {
        try manager.applyRelationshipMappings(of: mapping, to: dInstance, policy: self)
    }

    /// Ends the relationship pass of `mapping`. Does nothing by default. Runs inside the
    /// migration.
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Checks the migrated objects of `mapping` before the destination's own validation (Core
    /// Data calls it before the save's validation; fetch the objects you want to check). Does
    /// nothing by default. Runs inside the migration.
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Ends the migration of `mapping`, after validation. Does nothing by default. Runs inside
    /// the migration.
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, "selector", arguments…)` in a property mapping's
    /// value expression: Swift has no run-time selectors, so a policy answers such calls here.
    /// `arguments` are the evaluated arguments (managed objects stay objects). Throws by default
    /// (an unknown function). Runs inside the migration.
    open func value(forFunction selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
        throw StrataError(
            code: StrataError.Code.entityMigrationPolicy,
            message: "FUNCTION($entityPolicy, '\(selector)', …): \(type(of: self)) does not answer '\(selector)'; override value(forFunction:arguments:manager:)")
    }
}

/// The variable names a property mapping's value expression may use (Core Data's
/// `NSMigrationSourceObjectKey` and its siblings). Readable from any thread.
public enum MigrationVariable {
    /// `$source`: the source instance (Core Data's `NSMigrationSourceObjectKey`).
    public static let source = "source"
    /// `$destination`: the destination instance, while relationships are set (`NSMigrationDestinationObjectKey`).
    public static let destination = "destination"
    /// `$manager`: the ``MigrationManager`` (`NSMigrationManagerKey`).
    public static let manager = "manager"
    /// `$entityMapping`: the ``EntityMapping`` being run (`NSMigrationEntityMappingKey`).
    public static let entityMapping = "entityMapping"
    /// `$propertyMapping`: the ``PropertyMapping`` being evaluated (`NSMigrationPropertyMappingKey`).
    public static let propertyMapping = "propertyMapping"
    /// `$entityPolicy`: the mapping's ``EntityMigrationPolicy`` (`NSMigrationEntityPolicyKey`).
    public static let entityPolicy = "entityPolicy"
}
