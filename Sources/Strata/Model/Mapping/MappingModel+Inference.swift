import Foundation

/// Inferring a mapping model between two versions of a model (Core Data's lightweight
/// migration, `NSMappingModel.inferredMappingModel(forSourceModel:destinationModel:)`).
extension MappingModel {
    /// The mapping model Core Data's lightweight migration infers from `sourceModel` to
    /// `destinationModel`:
    ///
    /// - each destination entity is matched with the source entity of the same name, or the one
    ///   its `renamingIdentifier` names (a destination entity with no match is `add`ed; a source
    ///   entity no destination entity matches is `remove`d; unchanged ones are `copy`, changed
    ///   ones `transform`);
    /// - each destination property likewise (by name or `renamingIdentifier`); a new attribute
    ///   takes its default value (nil when it has none);
    /// - an attribute may become optional, or required when it has a default value (missing
    ///   values take it); its type may widen (Integer 16 → 32 → 64, any integer → Double or
    ///   Decimal, Float → Double);
    /// - a relationship may change between to-one and to-many, and entities may move into or
    ///   out of an inheritance tree.
    ///
    /// Anything else (an attribute's type changing otherwise, e.g. String → Integer; a new or
    /// newly required attribute without a default value; a relationship whose destination now
    /// maps to an unrelated entity) throws a ``StrataError`` with code
    /// ``StrataError/Code/inferredMappingModel`` (134190) naming the entity and property.
    /// Transient properties have no storage and are not mapped. Reads both models only;
    /// callable from any thread once the models are no longer being changed. See
    /// docs/models-and-migration.md.
    public static func inferredMappingModel(forSourceModel sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) throws -> MappingModel {
        var problems: [String] = []
        var mappings: [EntityMapping] = []
        var matched: [ObjectIdentifier: EntityDescription] = [:]
        var destinationOf: [ObjectIdentifier: EntityDescription] = [:]
        let destinationEntities = destinationModel.entities.sorted { $0.name < $1.name }
        for entity in destinationEntities {
            if let source = matchingEntity(for: entity, in: sourceModel), destinationOf[ObjectIdentifier(source)] == nil {
                matched[ObjectIdentifier(entity)] = source
                destinationOf[ObjectIdentifier(source)] = entity
            }
        }
        for entity in destinationEntities {
            guard let source = matched[ObjectIdentifier(entity)] else {
                // A new entity has no instances: its required attributes need no value yet.
                let mapping = EntityMapping(
                    name: "Add\(entity.name)", mappingType: .add, sourceEntityName: nil, destinationEntityName: entity.name,
                    attributeMappings: storedAttributes(of: entity).map { PropertyMapping(name: $0.name) },
                    relationshipMappings: storedRelationships(of: entity).map { PropertyMapping(name: $0.name) })
                mapping.destinationEntityVersionHash = entity.versionHash
                mappings.append(mapping)
                continue
            }
            let attributes = inferAttributes(from: source, to: entity, problems: &problems)
            let relationships = inferRelationships(from: source, to: entity, destinationOf: destinationOf, problems: &problems)
            let unchanged = source.name == entity.name && source.versionHash == entity.versionHash
            let mapping = EntityMapping(
                name: "\(source.name)To\(entity.name)", mappingType: unchanged ? .copy : .transform, sourceEntityName: source.name,
                destinationEntityName: entity.name, attributeMappings: attributes, relationshipMappings: relationships)
            mapping.sourceEntityVersionHash = source.versionHash
            mapping.destinationEntityVersionHash = entity.versionHash
            mappings.append(mapping)
        }
        for source in sourceModel.entities.sorted(by: { $0.name < $1.name }) where destinationOf[ObjectIdentifier(source)] == nil {
            let mapping = EntityMapping(name: "Remove\(source.name)", mappingType: .remove, sourceEntityName: source.name, destinationEntityName: nil)
            mapping.sourceEntityVersionHash = source.versionHash
            mappings.append(mapping)
        }
        if !problems.isEmpty {
            throw StrataError(
                code: StrataError.Code.inferredMappingModel,
                message: "Cannot infer a mapping model (lightweight migration cannot follow \(problems.count == 1 ? "this change" : "these changes")): "
                    + problems.joined(separator: "; "))
        }
        return MappingModel(entityMappings: mappings)
    }

    /// Whether lightweight migration converts a value of type `source` to `destination`: the
    /// same type, or a widening one (Integer 16 → 32 → 64, any integer → Double or Decimal,
    /// Float → Double).
    static func isInferableConversion(from source: AttributeType, to destination: AttributeType) -> Bool {
        if source == destination { return true }
        switch (source, destination) {
        case (.integer16, .integer32), (.integer16, .integer64), (.integer32, .integer64): return true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): return true
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.float, .double): return true
        default: return false
        }
    }

    // MARK: Matching

    /// The source entity a destination entity continues: the one its renaming identifier (else
    /// its name) names, else one with the same renaming identifier.
    static func matchingEntity(for entity: EntityDescription, in sourceModel: ManagedObjectModel) -> EntityDescription? {
        let key = entity.renamingIdentifier ?? entity.name
        if let byName = sourceModel.entitiesByName[key] { return byName }
        return sourceModel.entities.first { ($0.renamingIdentifier ?? $0.name) == key }
    }

    /// The source property a destination property continues, among `candidates`.
    static func matchingProperty<P: PropertyDescription>(for property: P, among candidates: [P]) -> P? {
        let key = property.renamingIdentifier ?? property.name
        if let byName = candidates.first(where: { $0.name == key }) { return byName }
        return candidates.first { ($0.renamingIdentifier ?? $0.name) == key }
    }

    /// The stored (not transient) attributes of `entity`, inherited ones included, by name.
    static func storedAttributes(of entity: EntityDescription) -> [AttributeDescription] {
        entity.allProperties.compactMap { $0 as? AttributeDescription }.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    /// The stored (not transient) relationships of `entity`, inherited ones included, by name.
    static func storedRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        entity.allProperties.compactMap { $0 as? RelationshipDescription }.filter { !$0.isTransient }.sorted { $0.name < $1.name }
    }

    // MARK: Properties

    private static func inferAttributes(from source: EntityDescription, to entity: EntityDescription, problems: inout [String]) -> [PropertyMapping] {
        let candidates = storedAttributes(of: source)
        var result: [PropertyMapping] = []
        for attribute in storedAttributes(of: entity) {
            let place = "\(entity.name).\(attribute.name)"
            guard let old = matchingProperty(for: attribute, among: candidates) else {
                if !attribute.isOptional && attribute.defaultValue == nil {
                    problems.append("\(place) is a new required attribute without a default value")
                }
                result.append(PropertyMapping(name: attribute.name))
                continue
            }
            // Optional → required is inferred with or without a default value: instances without
            // a value take the default, or, without one, fail the migration's validation.
            if !isInferableConversion(from: old.type, to: attribute.type) {
                problems.append("\(place) changed type from \(old.type) to \(attribute.type) (from \(source.name).\(old.name))")
            }
            result.append(.copying(old.name, into: attribute.name))
        }
        return result
    }

    private static func inferRelationships(
        from source: EntityDescription, to entity: EntityDescription, destinationOf: [ObjectIdentifier: EntityDescription], problems: inout [String]
    ) -> [PropertyMapping] {
        let candidates = storedRelationships(of: source)
        var result: [PropertyMapping] = []
        for relationship in storedRelationships(of: entity) {
            guard let old = matchingProperty(for: relationship, among: candidates) else {
                result.append(PropertyMapping(name: relationship.name))
                continue
            }
            let oldTarget = old.destinationEntity.flatMap { destinationOf[ObjectIdentifier($0)] }
            guard let newTarget = relationship.destinationEntity, let oldTarget, oldTarget.isKindOf(entity: newTarget) else {
                problems.append(
                    "\(entity.name).\(relationship.name) now leads to \(relationship.destinationEntityName ?? "?"), unrelated to what \(source.name).\(old.name) led to (\(old.destinationEntityName ?? "?"))"
                )
                continue
            }
            result.append(.copying(old.name, into: relationship.name))
        }
        return result
    }
}
