import Foundation

/// Turns a model file's element tree into descriptions: entities with their properties,
/// inheritance, constraints and indexes, then the model-level fetch request templates and
/// configurations. Every problem is a ``StrataError`` naming the file, line and element.
/// Unknown elements and attributes are ignored. Runs on the calling thread.
struct ModelFileBuilder {
    let file: URL

    /// What a model file describes, ready to be put into a ``ManagedObjectModel``.
    struct Contents {
        var entities: [EntityDescription] = []
        var configurations: [(name: String, members: [String])] = []
        var templates: [(name: String, request: FetchRequest<Any>)] = []
        var versionIdentifiers: Set<String> = []
        var userInfo: [String: any Sendable] = [:]
    }

    func error(_ what: String, at element: ModelXMLElement, entity: String? = nil, key: String? = nil) -> StrataError {
        ModelFileError.make(what, file: file, line: element.line, element: element.name, entity: entity, key: key)
    }

    func required(_ key: String, of element: ModelXMLElement, entity: String? = nil) throws -> String {
        guard let value = element[key] else { throw error("The '\(key)' attribute is missing", at: element, entity: entity) }
        return value
    }

    /// The `<userInfo><entry key value/></userInfo>` of `element`.
    func userInfo(of element: ModelXMLElement) -> [String: any Sendable] {
        var info: [String: any Sendable] = [:]
        for block in element.children(named: "userInfo") {
            for entry in block.children(named: "entry") {
                guard let key = entry.attributes["key"] else { continue }
                info[key] = entry.attributes["value"] ?? ""
            }
        }
        return info
    }

    func build(_ root: ModelXMLElement) throws -> Contents {
        guard root.name == "model" else { throw error("The root element is <\(root.name)>, not <model>", at: root) }
        var contents = Contents()
        if let identifier = root["userDefinedModelVersionIdentifier"] { contents.versionIdentifiers = [identifier] }
        contents.userInfo = userInfo(of: root)

        var entities: [(EntityDescription, ModelXMLElement)] = []
        var byName: [String: EntityDescription] = [:]
        for element in root.children(named: "entity") {
            let entity = try buildEntity(element)
            guard byName[entity.name] == nil else { throw error("Entity '\(entity.name)' is declared twice", at: element, entity: entity.name) }
            byName[entity.name] = entity
            entities.append((entity, element))
        }
        // Inheritance: each parent lists its sub-entities in file order.
        var subentities: [String: [EntityDescription]] = [:]
        for (entity, element) in entities {
            guard let parentName = element["parentEntity"] else { continue }
            guard byName[parentName] != nil else {
                throw error("Parent entity '\(parentName)' of '\(entity.name)' is not in the model", at: element, entity: entity.name)
            }
            subentities[parentName, default: []].append(entity)
        }
        // A cycle of parents (an entity its own ancestor) is refused before any entity holds
        // its sub-entities: they are strong references, so a cycle would never be freed.
        let parents = Dictionary(entities.map { ($0.0.name, $0.1["parentEntity"]) }, uniquingKeysWith: { first, _ in first })
        for (entity, element) in entities {
            var seen: Set<String> = [entity.name]
            var next = parents[entity.name] ?? nil
            while let name = next {
                guard seen.insert(name).inserted else {
                    throw error("The parent entities of '\(entity.name)' form a cycle (through '\(name)')", at: element, entity: entity.name)
                }
                next = parents[name] ?? nil
            }
        }
        for (entity, _) in entities { entity.subentities = subentities[entity.name] ?? [] }
        for (entity, element) in entities { try checkRelationships(of: entity, element: element, entities: byName) }
        contents.entities = entities.map(\.0)

        for element in root.children(named: "fetchRequest") {
            let name = try required("name", of: element)
            contents.templates.append((name, try fetchRequest(element, entities: byName)))
        }
        for element in root.children(named: "configuration") {
            let name = try required("name", of: element)
            var members: [String] = []
            for member in element.children(named: "memberEntity") {
                let entityName = try required("name", of: member)
                guard byName[entityName] != nil else {
                    throw error("Configuration '\(name)' names entity '\(entityName)', which is not in the model", at: member, entity: entityName)
                }
                members.append(entityName)
            }
            contents.configurations.append((name, members))
        }
        return contents
    }

    private func buildEntity(_ element: ModelXMLElement) throws -> EntityDescription {
        let name = try required("name", of: element)
        let entity = EntityDescription(name: name)
        entity.representedClassName = element["representedClassName"]
        entity.isAbstract = element.flag("isAbstract")
        entity.versionHashModifier = element["versionHashModifier"]
        entity.renamingIdentifier = element["elementID"]
        entity.userInfo = userInfo(of: element)
        var properties: [PropertyDescription] = []
        var seen = Set<String>()
        for child in element.children {
            let property: PropertyDescription
            switch child.name {
            case "attribute": property = try attribute(child, entity: name)
            case "relationship": property = try relationship(child, entity: name)
            case "fetchedProperty": property = try fetchedProperty(child, entity: name)
            default: continue
            }
            guard seen.insert(property.name).inserted else {
                throw error("Entity '\(name)' declares property '\(property.name)' twice", at: child, entity: name, key: property.name)
            }
            properties.append(property)
        }
        entity.properties = properties
        entity.uniquenessConstraints = try uniquenessConstraints(of: element, entity: name, properties: seen)
        entity.indexes = try indexes(of: element, entity: name)
        return entity
    }

    private func uniquenessConstraints(of element: ModelXMLElement, entity: String, properties: Set<String>) throws -> [[String]] {
        var result: [[String]] = []
        for block in element.children(named: "uniquenessConstraints") {
            for constraint in block.children(named: "uniquenessConstraint") {
                var names: [String] = []
                for part in constraint.children(named: "constraint") { names.append(try required("value", of: part, entity: entity)) }
                if !names.isEmpty { result.append(names) }
            }
        }
        return result
    }

    private func indexes(of element: ModelXMLElement, entity: String) throws -> [FetchIndexDescription] {
        var result: [FetchIndexDescription] = []
        for index in element.children(named: "fetchIndex") {
            let name = try required("name", of: index, entity: entity)
            var elements: [FetchIndexDescription.Element] = []
            for part in index.children(named: "fetchIndexElement") {
                let property = try required("property", of: part, entity: entity)
                let type: FetchIndexDescription.Element.CollationType = part["type"]?.lowercased() == "rtree" ? .rTree : .binary
                elements.append(.init(propertyName: property, collationType: type, isAscending: part["order"] != "descending"))
            }
            result.append(FetchIndexDescription(name: name, elements: elements, partialIndexPredicate: index["partialIndexExpression"]))
        }
        // The older form (Xcode before 9): <compoundIndexes><compoundIndex><index value=…/>.
        for block in element.children(named: "compoundIndexes") {
            for (number, compound) in block.children(named: "compoundIndex").enumerated() {
                let names = compound.children(named: "index").compactMap { $0["value"] }
                guard !names.isEmpty else { continue }
                result.append(FetchIndexDescription(name: "compoundIndex\(number + 1)", elements: names.map { .init(propertyName: $0) }))
            }
        }
        return result
    }

    /// Relationship destinations and inverses, checked once every entity is known, so the error
    /// names the line of the relationship.
    private func checkRelationships(of entity: EntityDescription, element: ModelXMLElement, entities: [String: EntityDescription]) throws {
        for child in element.children(named: "fetchedProperty") {
            guard let request = child.child(named: "fetchRequest"), let target = request["entity"] else { continue }
            guard entities[target] != nil else {
                throw error("Fetched property '\(entity.name).\(child["name"] ?? "")' fetches entity '\(target)', which is not in the model", at: request, entity: entity.name)
            }
        }
        for child in element.children(named: "relationship") {
            guard let name = child["name"], let relationship = entity.properties.first(where: { $0.name == name }) as? RelationshipDescription,
                let destinationName = relationship.destinationEntityName
            else { continue }
            guard let destination = entities[destinationName] else {
                throw error("Destination entity '\(destinationName)' of '\(entity.name).\(name)' is not in the model", at: child, entity: entity.name, key: name)
            }
            if let inverse = relationship.inverseName, !destination.ancestry.contains(where: { $0.properties.contains { $0.name == inverse && $0 is RelationshipDescription } }) {
                throw error("Inverse '\(inverse)' of '\(entity.name).\(name)' is not a relationship of '\(destinationName)'", at: child, entity: entity.name, key: name)
            }
        }
    }

    /// A `<fetchRequest>`: a model template or a fetched property's request.
    func fetchRequest(_ element: ModelXMLElement, entities: [String: EntityDescription]?) throws -> FetchRequest<Any> {
        let entityName = try required("entity", of: element)
        if let entities, entities[entityName] == nil {
            throw error("Fetch request '\(element["name"] ?? "")' names entity '\(entityName)', which is not in the model", at: element, entity: entityName)
        }
        let request = FetchRequest<Any>(entityName: entityName)
        if let format = element["predicateString"] {
            do {
                request.predicate = try ObjectPredicate(validatingFormat: format, argumentArray: [])
            } catch let parse as StrataError {
                throw error("The predicate '\(format)' does not parse: \(parse.message)", at: element, entity: entityName)
            }
        }
        if let limit = element["fetchLimit"].flatMap(ModelFileValues.count) { request.fetchLimit = limit }
        if let size = element["fetchBatchSize"].flatMap(ModelFileValues.count) { request.fetchBatchSize = size }
        if element.attributes["includeSubentities"] != nil { request.includesSubentities = element.flag("includeSubentities") }
        if element.attributes["returnObjectsAsFaults"] != nil { request.returnsObjectsAsFaults = element.flag("returnObjectsAsFaults") }
        if element.attributes["returnDistinctResults"] != nil { request.returnsDistinctResults = element.flag("returnDistinctResults") }
        return request
    }
}
