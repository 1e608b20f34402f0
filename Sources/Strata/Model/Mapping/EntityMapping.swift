import Foundation

/// How the instances of one source entity become instances of one destination entity (Core
/// Data's `NSEntityMapping`).
///
/// A migration runs the mappings of a ``MappingModel`` in order. `copy` and `transform`
/// mappings are run by the store itself where it can (lightweight migration, in place in
/// SQLite); `custom` mappings, and any mapping with an `entityMigrationPolicyClass`, run through
/// a `MigrationManager` and its policy. Configure it before handing the mapping model to a
/// migration; not thread-safe while being changed.
public final class EntityMapping: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a configuration object, set up before a migration and only read during it.
    /// The mapping's name, unique within its mapping model (Core Data names inferred ones
    /// `SourceToDestination`).
    public var name: String
    /// What the mapping does.
    public var mappingType: EntityMappingType
    /// The source entity's name (`nil` for `add`).
    public var sourceEntityName: String?
    /// The destination entity's name (`nil` for `remove`).
    public var destinationEntityName: String?
    /// The source entity's version hash, recorded when the mapping was made (`nil`: not checked).
    public var sourceEntityVersionHash: Data?
    /// The destination entity's version hash, recorded when the mapping was made.
    public var destinationEntityVersionHash: Data?
    /// How each destination attribute gets its value.
    public var attributeMappings: [PropertyMapping]
    /// How each destination relationship gets its value.
    public var relationshipMappings: [PropertyMapping]
    /// Which source instances the mapping migrates, as a predicate over the source entity's
    /// instances (`nil`: all of them, sub-entities' instances excluded as Core Data does).
    public var sourceInstancesPredicate: ObjectPredicate?
    /// Whether a custom migration also migrates instances of the source entity's sub-entities
    /// with this mapping (default `false`: Core Data's default source expression fetches the
    /// entity's own instances only, and sub-entities have mappings of their own).
    public var sourceInstancesIncludeSubentities = false
    /// Application data kept with the mapping.
    public var userInfo: [String: any Sendable]
    /// The policy class, kept untyped here so that the model layer does not name the migration
    /// layer; read and set it as `entityMigrationPolicyClass` (Migration/EntityMapping+Policy.swift).
    var policyClass: AnyClass?

    /// Creates an entity mapping.
    public init(
        name: String, mappingType: EntityMappingType, sourceEntityName: String?, destinationEntityName: String?,
        attributeMappings: [PropertyMapping] = [], relationshipMappings: [PropertyMapping] = [], userInfo: [String: any Sendable] = [:]
    ) {
        self.name = name
        self.mappingType = mappingType
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.userInfo = userInfo
    }

    /// The attribute mapping for the destination attribute `name`.
    public func attributeMapping(named name: String) -> PropertyMapping? {
        attributeMappings.first { $0.name == name }
    }

    /// The relationship mapping for the destination relationship `name`.
    public func relationshipMapping(named name: String) -> PropertyMapping? {
        relationshipMappings.first { $0.name == name }
    }

    public var description: String {
        "<EntityMapping \(name) \(mappingType.rawValue) \(sourceEntityName ?? "-") → \(destinationEntityName ?? "-")>"
    }
}
