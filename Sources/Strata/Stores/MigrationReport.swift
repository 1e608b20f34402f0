import Foundation

/// What a migration of a store did, or would do (see
/// `PersistentStoreCoordinator.dryRunMigration(ofStoreAt:type:options:to:)`): one entry per entity
/// mapping, with the property changes and the entity's rows before and after. A value; usable on
/// any thread.
public struct MigrationReport: Sendable, CustomStringConvertible {
    /// One entity mapping's part of a migration. A value; usable on any thread.
    public struct EntityChange: Sendable, CustomStringConvertible {
        /// The entity mapping's name (`SourceToDestination`, `AddX`, `RemoveX` when inferred).
        public let mappingName: String
        /// What the mapping does: `copy`, `transform`, `add` or `remove`.
        public let mappingType: EntityMappingType
        /// The source entity's name (`nil` for an added entity).
        public let sourceEntityName: String?
        /// The destination entity's name (`nil` for a removed entity).
        public let destinationEntityName: String?
        /// The property changes, one sentence each (`"added rating"`, `"renamed remoteIdentifier
        /// → remoteID"`, `"size: Integer 16 → Integer 64"`, `"folder: to-one → to-many"`, …).
        public let propertyChanges: [String]
        /// The source entity's own rows (not its sub-entities') before the migration.
        public let rowCountBefore: Int
        /// The destination entity's own rows after the migration.
        public let rowCountAfter: Int

        public var description: String {
            let names = "\(sourceEntityName ?? "-") → \(destinationEntityName ?? "-")"
            let changes = propertyChanges.isEmpty ? "" : ": " + propertyChanges.joined(separator: ", ")
            return "\(mappingType.rawValue) \(names) (\(rowCountBefore) → \(rowCountAfter) rows)\(changes)"
        }
    }

    /// The store's model version hash before the migration (hex).
    public let sourceVersionHash: String
    /// The model version hash the store has after it (hex).
    public let destinationVersionHash: String
    /// Whether the store needed migrating (false: it was already made with the destination model).
    public let isMigrationNeeded: Bool
    /// The entity mappings' parts, in the mapping model's order.
    public let entityChanges: [EntityChange]

    /// Creates a report (Strata makes them; public for tests and tools). Callable from any thread.
    public init(sourceVersionHash: String, destinationVersionHash: String, isMigrationNeeded: Bool, entityChanges: [EntityChange]) {
        self.sourceVersionHash = sourceVersionHash
        self.destinationVersionHash = destinationVersionHash
        self.isMigrationNeeded = isMigrationNeeded
        self.entityChanges = entityChanges
    }

    /// The part of the entity mapping that produces the destination entity `name`. Callable
    /// from any thread.
    public func change(forDestinationEntity name: String) -> EntityChange? {
        entityChanges.first { $0.destinationEntityName == name }
    }

    public var description: String {
        guard isMigrationNeeded else { return "<MigrationReport: no migration needed>" }
        return "<MigrationReport\n" + entityChanges.map { "  " + $0.description }.joined(separator: "\n") + "\n>"
    }
}

extension MigrationReport.EntityChange {
    /// Describes a mapping's property changes between its source and destination entities.
    static func propertyChanges(of mapping: EntityMapping, source: EntityDescription?, destination: EntityDescription?) -> [String] {
        guard let source, let destination else { return [] }
        var changes: [String] = []
        var used = Set<String>()
        for property in destination.allProperties where !property.isTransient {
            let propertyMapping = (property is AttributeDescription ? mapping.attributeMapping(named: property.name) : mapping.relationshipMapping(named: property.name))
            guard let sourceName = propertyMapping?.sourcePropertyName, let old = source.propertiesByName[sourceName] else {
                changes.append("added \(property.name)")
                continue
            }
            used.insert(sourceName)
            if sourceName != property.name { changes.append("renamed \(sourceName) → \(property.name)") }
            if let old = old as? AttributeDescription, let new = property as? AttributeDescription, old.type != new.type {
                changes.append("\(property.name): \(old.type) → \(new.type)")
            }
            if old.isOptional != property.isOptional { changes.append("\(property.name): \(property.isOptional ? "now optional" : "now required")") }
            if let old = old as? RelationshipDescription, let new = property as? RelationshipDescription, old.isToMany != new.isToMany {
                changes.append("\(property.name): \(old.isToMany ? "to-many → to-one" : "to-one → to-many")")
            }
        }
        for property in source.allProperties where !property.isTransient && !used.contains(property.name) {
            changes.append("removed \(property.name)")
        }
        if source.superentity?.name != destination.superentity?.name {
            changes.append("parent \(source.superentity?.name ?? "none") → \(destination.superentity?.name ?? "none")")
        }
        return changes
    }
}
