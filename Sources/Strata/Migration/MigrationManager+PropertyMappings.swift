import Foundation

/// What the default policy does with property mappings: insert, set attributes, set
/// relationships through the associations. Used on the migrating thread only.
extension MigrationManager {
    /// Inserts a new instance of the destination entity `name` into the destination context.
    func insertDestinationInstance(ofEntityNamed name: String, for mapping: EntityMapping) throws -> ManagedObject {
        guard let context = destinationContext, let entity = destinationModel.entitiesByName[name] else {
            throw StrataError(code: StrataError.Code.migrationMissingMappingModel, message: "Entity mapping '\(mapping.name)': no destination entity '\(name)' (or no migration is running)")
        }
        return try context.insertNewObject(of: entity)
    }

    /// The variables of a mapping's expressions.
    private func variables(_ mapping: EntityMapping, policy: EntityMigrationPolicy, source: ManagedObject?, destination: ManagedObject?) -> [String: Any] {
        var variables: [String: Any] = [MigrationVariable.manager: self, MigrationVariable.entityMapping: mapping, MigrationVariable.entityPolicy: policy]
        if let source { variables[MigrationVariable.source] = source }
        if let destination { variables[MigrationVariable.destination] = destination }
        return variables
    }

    /// The attribute mappings to run: the mapping's own, or for a `copy` mapping without any,
    /// one per stored destination attribute (inherited ones too) that the source entity has under the same name.
    private func attributeMappings(of mapping: EntityMapping, source: EntityDescription, destination: EntityDescription) -> [PropertyMapping] {
        guard mapping.mappingType == .copy, mapping.attributeMappings.isEmpty else { return mapping.attributeMappings }
        let sourceAttributes = source.attributesByName
        return destination.attributesByName.values.sorted { $0.name < $1.name }.compactMap { attribute in
            guard !attribute.isTransient, sourceAttributes[attribute.name] != nil else { return nil }
            return PropertyMapping.copying(attribute.name, into: attribute.name)
        }
    }

    /// The relationship mappings to run: the mapping's own, or for a `copy` mapping without
    /// any, one per destination relationship the source entity has under the same name.
    private func relationshipMappings(of mapping: EntityMapping, source: EntityDescription, destination: EntityDescription) -> [PropertyMapping] {
        guard mapping.mappingType == .copy, mapping.relationshipMappings.isEmpty else { return mapping.relationshipMappings }
        let sourceRelationships = source.relationshipsByName
        return destination.relationshipsByName.values.sorted { $0.name < $1.name }.compactMap { relationship in
            guard !relationship.isTransient, sourceRelationships[relationship.name] != nil else { return nil }
            return PropertyMapping.copying(relationship.name, into: relationship.name)
        }
    }

    /// Sets each mapped attribute of `destination` from its value expression over `source`.
    func applyAttributeMappings(of mapping: EntityMapping, from source: ManagedObject, to destination: ManagedObject, policy: EntityMigrationPolicy) throws {
        let entity = destination.entity
        var variables = variables(mapping, policy: policy, source: source, destination: nil)
        for propertyMapping in attributeMappings(of: mapping, source: source.entity, destination: entity) {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            guard let attribute = entity.attributesByName[name] else {
                throw mappingError(mapping, "the attribute mapping '\(name)' names no attribute of \(entity.name)")
            }
            variables[MigrationVariable.propertyMapping] = propertyMapping
            var value = try MigrationExpressionEvaluator(variables: variables, manager: self, policy: policy).value(of: expression)
            if value is NSNull { value = nil }
            if let value, case .failure(let problem) = AttributeCodec.encode(value, for: attribute) {
                throw mappingError(mapping, "the value of '\(expression)' cannot be stored in \(entity.name).\(name): \(problem.message)", key: name)
            }
            destination.setValue(value, forKey: name)
        }
    }

    /// Sets each mapped relationship of `destination` from its value expression over the source
    /// instance it was made from, mapping source objects to their destination instances.
    func applyRelationshipMappings(of mapping: EntityMapping, to destination: ManagedObject, policy: EntityMigrationPolicy) throws {
        let source = sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [destination]).first
        let entity = destination.entity
        guard let sourceEntity = source?.entity ?? mapping.sourceEntityName.flatMap({ sourceModel.entitiesByName[$0] }) else { return }
        var variables = variables(mapping, policy: policy, source: source, destination: destination)
        for propertyMapping in relationshipMappings(of: mapping, source: sourceEntity, destination: entity) {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            guard let relationship = entity.relationshipsByName[name] else {
                throw mappingError(mapping, "the relationship mapping '\(name)' names no relationship of \(entity.name)")
            }
            variables[MigrationVariable.propertyMapping] = propertyMapping
            let value = try MigrationExpressionEvaluator(variables: variables, manager: self, policy: policy).value(of: expression)
            let targets = destinationInstances(forSourceObjects: MigrationObjects.objects(in: value), relationship: relationship)
            if relationship.isToMany {
                destination.setValue(relationship.isOrdered ? targets : Set(targets) as Any, forKey: name)
            } else {
                destination.setValue(targets.first, forKey: name)
            }
        }
    }

    /// The destination relationship `name` of the mapping's destination entity.
    func destinationRelationship(named name: String, of mapping: EntityMapping) -> RelationshipDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0]?.relationshipsByName[name] }
    }

    /// `objects` as destination instances for `relationship`: destination objects stay; each
    /// source object becomes the instances associated with it by the mappings whose destination
    /// entity fits the relationship's destination, in order, without repeats.
    func destinationInstances(forSourceObjects objects: [ManagedObject], relationship: RelationshipDescription) -> [ManagedObject] {
        guard let context = destinationContext else { return [] }
        let target = relationship.destinationEntity
        let mappingNames = (mappingModel?.entityMappings ?? []).compactMap { mapping -> String? in
            guard let name = mapping.destinationEntityName, let entity = destinationModel.entitiesByName[name] else { return nil }
            return target.map { entity.isKindOf(entity: $0) } ?? true ? mapping.name : nil
        }
        var found: [ManagedObject] = []
        var seen = Set<ObjectIdentifier>()
        for object in objects {
            let candidates: [ManagedObject]
            if object.managedObjectContext === context {
                candidates = [object]
            } else {
                candidates = mappingNames.flatMap { associations.destinations(mappingName: $0, sources: [object.objectID], in: context) }
            }
            for candidate in candidates where seen.insert(ObjectIdentifier(candidate)).inserted { found.append(candidate) }
        }
        return found
    }

    private func mappingError(_ mapping: EntityMapping, _ why: String, key: String? = nil) -> StrataError {
        StrataError(code: StrataError.Code.entityMigrationPolicy, message: "Entity mapping '\(mapping.name)': \(why)", entityName: mapping.destinationEntityName, key: key)
    }
}
