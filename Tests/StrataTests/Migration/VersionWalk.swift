import Foundation
import Strata
import StrataTestSupport
import Testing

/// Seeds a store of one model version with generated objects of every concrete entity and
/// compares it, through the inferred mapping, with the store after migration: each destination
/// entity has the rows of its source entity with the copied attributes' values (renamed,
/// widened), the defaults of new attributes, and the members of its relationships.
enum VersionWalk {
    static let objectsPerEntity = 3

    /// Inserts `objectsPerEntity` objects of every concrete entity, each attribute set to a
    /// value unique to the object, each relationship linked to the object of the same index of
    /// its destination; saves.
    static func seed(_ model: ManagedObjectModel, at url: URL) throws {
        try MigrationHarness.with(model, at: url) { context in
            let concrete = model.entities.filter { !$0.isAbstract }.sorted { $0.name < $1.name }
            var objects: [String: [ManagedObject]] = [:]
            var counter = 0
            for entity in concrete {
                for _ in 0..<objectsPerEntity {
                    counter += 1
                    let object = try context.insertNewObject(of: entity)
                    for case let attribute as AttributeDescription in entity.allProperties where !attribute.isTransient {
                        object.setValue(ModelFiller.sampleValue(for: attribute, seed: counter), forKey: attribute.name)
                    }
                    objects[entity.name, default: []].append(object)
                }
            }
            for entity in concrete {
                for (index, object) in (objects[entity.name] ?? []).enumerated() {
                    for case let relationship as RelationshipDescription in entity.allProperties where !relationship.isTransient {
                        guard let destination = relationship.destinationEntity,
                            let kind = concrete.first(where: { $0.isKindOf(entity: destination) }), let target = objects[kind.name]?[index]
                        else { continue }
                        if !relationship.isToMany {
                            object.setValue(target, forKey: relationship.name)
                        } else if relationship.isOrdered {
                            object.mutableOrderedSetValue(forKey: relationship.name).add(target)
                        } else {
                            object.mutableSetValue(forKey: relationship.name).add(target)
                        }
                    }
                }
            }
            try context.save()
        }
    }

    /// A value as text comparable across widening (numbers as doubles).
    static func normalized(_ value: Any?) -> String {
        switch value {
        case nil: return "nil"
        case let v as Int16: return "\(Double(v))"
        case let v as Int32: return "\(Double(v))"
        case let v as Int64: return "\(Double(v))"
        case let v as Int: return "\(Double(v))"
        case let v as Float: return "\(Double(v))"
        case let v as Double: return "\(v)"
        case let v as Decimal: return "\(NSDecimalNumber(decimal: v).doubleValue)"
        case let v as Date: return "\(v.timeIntervalSinceReferenceDate)"
        case let v as Data: return v.base64EncodedString()
        case let v?: return "\(v)"
        }
    }

    /// The mapping that produces `entity` (destination side) or consumes it (source side).
    static func entityMapping(of entity: String, source: Bool, in mapping: MappingModel) -> EntityMapping? {
        mapping.entityMappings.first { source ? ($0.sourceEntityName == entity && $0.mappingType != .remove) : $0.destinationEntityName == entity }
    }

    /// An object's identity across the migration: its destination entity and the values of the
    /// attributes its mapping copies.
    static func fingerprint(_ object: ManagedObject, source: Bool, mapping: MappingModel) -> String {
        guard let entityMapping = entityMapping(of: object.entity.name, source: source, in: mapping) else { return "?" }
        let pairs = entityMapping.attributeMappings.compactMap { m -> (String, String)? in m.sourcePropertyName.flatMap { s in m.name.map { ($0, s) } } }
        let values = pairs.sorted { $0.0 < $1.0 }.map { normalized(object.value(forKey: source ? $0.1 : $0.0)) }
        return (entityMapping.destinationEntityName ?? "?") + ":" + values.joined(separator: ",")
    }

    /// Per destination entity, the sorted fingerprints of its objects and, per relationship,
    /// the sorted "owner → members" lines.
    static func snapshot(_ model: ManagedObjectModel, at url: URL, mapping: MappingModel, source: Bool, options: [String: any Sendable] = [:]) throws -> [String: [String]] {
        try MigrationHarness.with(model, at: url, options: options) { context in
            var result: [String: [String]] = [:]
            for entityMapping in mapping.entityMappings where entityMapping.mappingType == .copy || entityMapping.mappingType == .transform {
                guard let name = source ? entityMapping.sourceEntityName : entityMapping.destinationEntityName, let destination = entityMapping.destinationEntityName else { continue }
                let objects = try MigrationHarness.objects(name, in: context, exact: true)
                result[destination] = objects.map { fingerprint($0, source: source, mapping: mapping) }.sorted()
                for relationshipMapping in entityMapping.relationshipMappings {
                    guard let newName = relationshipMapping.name, let oldName = relationshipMapping.sourcePropertyName else { continue }
                    result["\(destination).\(newName)"] = objects.map { object -> String in
                        let value = object.value(forKey: source ? oldName : newName)
                        var members: [ManagedObject] = []
                        if let one = value as? ManagedObject { members = [one] }
                        if let set = value as? Set<ManagedObject> { members = Array(set) }
                        if let array = value as? [ManagedObject] { members = array }
                        return fingerprint(object, source: source, mapping: mapping) + " → " + members.map { fingerprint($0, source: source, mapping: mapping) }.sorted().joined(separator: " ")
                    }.sorted()
                }
            }
            return result
        }
    }

    /// The defaults of the attributes new in each destination entity, checked on every object.
    static func checkNewAttributes(_ model: ManagedObjectModel, at url: URL, mapping: MappingModel) throws {
        try MigrationHarness.with(model, at: url) { context in
            for entityMapping in mapping.entityMappings where entityMapping.mappingType == .transform {
                guard let name = entityMapping.destinationEntityName, let entity = model.entitiesByName[name] else { continue }
                for attributeMapping in entityMapping.attributeMappings where attributeMapping.valueExpression == nil {
                    guard let attributeName = attributeMapping.name, let attribute = entity.attributesByName[attributeName] else { continue }
                    for object in try MigrationHarness.objects(name, in: context, exact: true) {
                        #expect(normalized(object.value(forKey: attributeName)) == normalized(attribute.defaultValue), "\(name).\(attributeName)")
                    }
                }
            }
        }
    }

    /// Seeds a store of `version`, migrates it by opening it with `latest` (read from the
    /// bundle, so its versions are the candidate source models) and checks the data.
    static func walk(from version: URL, to latest: ManagedObjectModel, in directory: TemporaryDirectory) throws {
        let source = try ManagedObjectModel(contentsOf: version)
        let url = directory.file(version.deletingPathExtension().lastPathComponent + ".sqlite")
        try seed(source, at: url)
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: latest)
        let before = try snapshot(source, at: url, mapping: mapping, source: true)
        let after = try snapshot(latest, at: url, mapping: mapping, source: false, options: MigrationHarness.automatic)
        // Every concrete source entity that continues was seeded and is compared.
        for entityMapping in mapping.entityMappings where entityMapping.mappingType == .copy || entityMapping.mappingType == .transform {
            guard let name = entityMapping.destinationEntityName, source.entitiesByName[entityMapping.sourceEntityName ?? ""]?.isAbstract == false else { continue }
            #expect(before[name]?.count == objectsPerEntity, "\(version.lastPathComponent): \(name)")
        }
        if ProcessInfo.processInfo.environment["STRATA_MIGRATION_DUMP"] != nil { print(before) }
        for key in before.keys.sorted() {
            // A to-many that became a to-one keeps one member: not compared.
            let parts = key.split(separator: ".").map(String.init)
            if parts.count == 2, let entityMapping = entityMapping(of: parts[0], source: false, in: mapping),
                let oldName = entityMapping.relationshipMapping(named: parts[1])?.sourcePropertyName,
                source.entitiesByName[entityMapping.sourceEntityName ?? ""]?.relationshipsByName[oldName]?.isToMany == true,
                latest.entitiesByName[parts[0]]?.relationshipsByName[parts[1]]?.isToMany == false
            {
                continue
            }
            #expect(after[key] == before[key], "\(version.lastPathComponent): \(key)")
        }
        try checkNewAttributes(latest, at: url, mapping: mapping)
    }
}
