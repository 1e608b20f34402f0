import Foundation

/// Finds every problem of a model before it is used, so one error can list them all.
struct ModelChecker {
    let model: ManagedObjectModel
    /// Whether a transformable attribute's transformer must already be registered.
    var checksTransformers = true

    /// Property names that would hide `ManagedObject` API or break key-value lookups.
    static let reservedPropertyNames: Set<String> = [
        "description", "debugDescription", "entity", "objectID", "managedObjectContext", "isInserted",
        "isUpdated", "isDeleted", "isFault", "hasChanges", "hasPersistentChangedValues", "changedValues",
        "changedValuesForCurrentEvent", "hash", "hashValue", "self", "class", "superclass",
    ]

    private func problem(_ message: String, entity: String? = nil, key: String? = nil) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: message, entityName: entity, key: key)
    }

    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        guard first == "_" || CharacterSet.letters.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || CharacterSet.alphanumerics.contains($0) }
    }

    func problems() -> [StrataError] {
        var found: [StrataError] = []
        let entities = model.entities
        var seenEntityNames: [String: Int] = [:]
        for entity in entities { seenEntityNames[entity.name, default: 0] += 1 }
        for (name, count) in seenEntityNames.sorted(by: { $0.key < $1.key }) where count > 1 {
            found.append(problem("Entity name '\(name)' is used by \(count) entities", entity: name))
        }
        for entity in entities {
            found += checkEntity(entity, allEntities: entities)
        }
        return found
    }

    private func checkEntity(_ entity: EntityDescription, allEntities: [EntityDescription]) -> [StrataError] {
        var found: [StrataError] = []
        let name = entity.name
        if !Self.isIdentifier(name) {
            found.append(problem("Entity name '\(name)' is not a valid identifier (letters, digits and _, not starting with a digit)", entity: name))
        }
        // Inheritance: no cycles, parents in the model.
        var visited = Set<ObjectIdentifier>()
        var ancestor: EntityDescription? = entity
        while let current = ancestor {
            if !visited.insert(ObjectIdentifier(current)).inserted {
                found.append(problem("Entity '\(name)' inherits from itself through '\(current.name)'", entity: name))
                break
            }
            ancestor = current.superentity
        }
        if let parent = entity.superentity, !allEntities.contains(where: { $0 === parent }) {
            found.append(problem("Entity '\(name)' inherits from '\(parent.name)', which is not in the model", entity: name))
        }
        // Property names: valid, not reserved, unique across the inheritance chain.
        var inherited = Set<String>()
        var parent = entity.superentity
        var guardCount = 0
        while let current = parent, guardCount < 1_000 {
            for property in current.properties { inherited.insert(property.name) }
            parent = current.superentity
            guardCount += 1
        }
        var seen = Set<String>()
        for property in entity.properties {
            let key = property.name
            if !Self.isIdentifier(key) {
                found.append(problem("Property name '\(key)' of entity '\(name)' is not a valid identifier", entity: name, key: key))
            } else if Self.reservedPropertyNames.contains(key) {
                found.append(problem("Property name '\(key)' of entity '\(name)' is reserved (it would hide ManagedObject's own '\(key)')", entity: name, key: key))
            }
            if !seen.insert(key).inserted {
                found.append(problem("Entity '\(name)' declares property '\(key)' more than once", entity: name, key: key))
            }
            if inherited.contains(key) {
                found.append(problem("Entity '\(name)' redeclares property '\(key)' that it inherits", entity: name, key: key))
            }
            switch property {
            case let attribute as AttributeDescription:
                found += checkAttribute(attribute, entityName: name)
            case let relationship as RelationshipDescription:
                found += checkRelationship(relationship, entityName: name, allEntities: allEntities)
            default:
                break
            }
        }
        // Uniqueness constraints name stored attributes.
        let attributes = entity.attributesByName
        for constraint in entity.uniquenessConstraints {
            if constraint.isEmpty {
                found.append(problem("Entity '\(name)' has an empty uniqueness constraint", entity: name))
            }
            for key in constraint {
                if let attribute = attributes[key] {
                    if attribute.isTransient {
                        found.append(problem("Uniqueness constraint of '\(name)' names transient attribute '\(key)'", entity: name, key: key))
                    }
                } else if let relationship = entity.relationshipsByName[key] {
                    if relationship.isToMany {
                        found.append(problem("Uniqueness constraint of '\(name)' names to-many relationship '\(key)'", entity: name, key: key))
                    } else if relationship.isTransient {
                        found.append(problem("Uniqueness constraint of '\(name)' names transient relationship '\(key)'", entity: name, key: key))
                    }
                } else {
                    found.append(problem("Uniqueness constraint of '\(name)' names unknown attribute '\(key)'", entity: name, key: key))
                }
            }
        }
        return found
    }

    private func checkAttribute(_ attribute: AttributeDescription, entityName: String) -> [StrataError] {
        var found: [StrataError] = []
        let key = attribute.name
        if !attribute.isTransient && !attribute.type.isStorable {
            found.append(
                problem("Attribute '\(entityName).\(key)' has type \(attribute.type.rawValue), which cannot be stored; make it transient or choose a storable type", entity: entityName, key: key))
        }
        if attribute.type == .objectID {
            found.append(problem("Attribute '\(entityName).\(key)' has type objectID, which is only for expressions", entity: entityName, key: key))
        }
        if attribute.type == .transformable && checksTransformers {
            let transformer = attribute.valueTransformerName ?? AttributeValueTransformers.propertyListTransformerName
            if AttributeValueTransformers.transformer(forName: transformer) == nil {
                found.append(
                    problem(
                        "Attribute '\(entityName).\(key)' names value transformer '\(transformer)', which is not registered (register it with AttributeValueTransformers.register(_:forName:) before loading the model)",
                        entity: entityName, key: key))
            }
        }
        if let defaultValue = attribute.defaultValue, attribute.type.isStorable {
            switch AttributeCodec.encode(defaultValue, for: attribute) {
            case .failure(let reason):
                found.append(problem("Default value \(defaultValue) of '\(entityName).\(key)' does not fit its type \(attribute.type.rawValue): \(reason.message)", entity: entityName, key: key))
            case .success(.integer(let value)):
                if let range = attribute.type.integerRange, !range.contains(value) {
                    found.append(
                        problem(
                            "Default value \(value) of '\(entityName).\(key)' is out of the range of \(attribute.type.rawValue) (\(range.lowerBound)…\(range.upperBound))", entity: entityName, key: key
                        ))
                }
            case .success:
                break
            }
        }
        if let pattern = attribute.regularExpression, (try? NSRegularExpression(pattern: pattern)) == nil {
            found.append(problem("Regular expression '\(pattern)' of '\(entityName).\(key)' does not compile", entity: entityName, key: key))
        }
        return found
    }

    private func checkRelationship(_ relationship: RelationshipDescription, entityName: String, allEntities: [EntityDescription]) -> [StrataError] {
        var found: [StrataError] = []
        let key = relationship.name
        guard let destination = relationship.destinationEntity else {
            let named = relationship.destinationEntityName.map { "'\($0)', which is not in the model" } ?? "no destination entity"
            found.append(problem("Relationship '\(entityName).\(key)' has \(named)", entity: entityName, key: key))
            return found
        }
        if !allEntities.contains(where: { $0 === destination }) {
            found.append(problem("Relationship '\(entityName).\(key)' points to entity '\(destination.name)', which is not in the model", entity: entityName, key: key))
        }
        if relationship.isOrdered && !relationship.isToMany {
            found.append(problem("Relationship '\(entityName).\(key)' is ordered but not to-many", entity: entityName, key: key))
        }
        if relationship.minCount < 0 || relationship.maxCount < 0 || (relationship.maxCount > 0 && relationship.minCount > relationship.maxCount) {
            found.append(problem("Relationship '\(entityName).\(key)' has an impossible count range \(relationship.minCount)…\(relationship.maxCount)", entity: entityName, key: key))
        }
        if let inverseName = relationship.inverseName {
            guard let inverse = destination.relationshipsByName[inverseName] else {
                found.append(problem("Relationship '\(entityName).\(key)' names inverse '\(inverseName)', which '\(destination.name)' does not have", entity: entityName, key: key))
                return found
            }
            if inverse.inverseName != key {
                found.append(
                    problem(
                        "Relationship '\(entityName).\(key)' names inverse '\(destination.name).\(inverseName)', whose own inverse is '\(inverse.inverseName ?? "nil")' instead of '\(key)'",
                        entity: entityName, key: key))
            }
            if let source = relationship.entity, let back = inverse.destinationEntity, !(source.isKindOf(entity: back) || back.isKindOf(entity: source)) {
                found.append(problem("Relationship '\(entityName).\(key)' and its inverse '\(destination.name).\(inverseName)' do not point at each other's entities", entity: entityName, key: key))
            }
            // Both sides of a pair are transient, or neither: a stored side would be written
            // while its inverse never is, and read back half-made. (Core Data documents no rule
            // for a mixed pair; Strata refuses it rather than guess.) Reported once, from the
            // transient side.
            if relationship.isTransient && !inverse.isTransient {
                found.append(
                    problem(
                        "Relationship '\(entityName).\(key)' is transient but its inverse '\(destination.name).\(inverseName)' is not: make both sides of a relationship transient, or neither",
                        entity: entityName, key: key))
            }
            if inverse.isOrdered && relationship.isOrdered {
                found.append(problem("Relationship '\(entityName).\(key)' and its inverse are both ordered; Strata orders one side of a many-to-many only", entity: entityName, key: key))
            }
        }
        return found
    }
}
