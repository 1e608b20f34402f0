import Strata

/// Builds the ``EntityPlan``s of a model: which entities get classes, what each base class
/// inherits from and declares.
struct EntityPlanner {
    let model: ManagedObjectModel
    /// Entity name → class name, for entities that get a class.
    let classNames: [String: String]

    init(model: ManagedObjectModel) {
        self.model = model
        var names: [String: String] = [:]
        for entity in model.entities {
            if let name = SwiftNames.className(entity.representedClassName) { names[entity.name] = name }
        }
        self.classNames = names
    }

    /// The plans, sorted by class name (entities without a class of their own get none).
    func plans() -> [EntityPlan] {
        model.entities.compactMap(plan(for:)).sorted { $0.className < $1.className }
    }

    /// The class of `entity`'s objects in generated code: its own class, else its nearest
    /// ancestor's, else `ManagedObject`.
    func objectClassName(of entity: EntityDescription?) -> String {
        var current = entity
        while let level = current {
            if let name = classNames[level.name] { return name }
            current = level.superentity
        }
        return "ManagedObject"
    }

    private func plan(for entity: EntityDescription) -> EntityPlan? {
        guard let className = classNames[entity.name] else { return nil }
        // Own properties plus those of ancestors that have no class to declare them.
        var levels: [EntityDescription] = [entity]
        var ancestor = entity.superentity
        while let level = ancestor, classNames[level.name] == nil {
            levels.insert(level, at: 0)
            ancestor = level.superentity
        }
        var properties: [PropertyPlan] = []
        var skipped: [(name: String, reason: String)] = []
        for level in levels {
            for property in level.properties.sorted(by: { $0.name < $1.name }) {
                switch propertyPlan(for: property) {
                case .success(let plan): properties.append(plan)
                case .failure(let reason): skipped.append((property.name, reason.text))
                }
            }
        }
        let isLeaf = !hasClassedDescendant(entity)
        return EntityPlan(
            entityName: entity.name, className: className, baseName: "_" + className,
            superclassName: objectClassName(of: entity.superentity), isLeaf: isLeaf,
            properties: properties, skipped: skipped, keyPaths: keyPaths(of: entity))
    }

    /// Whether any entity below `entity` has a class (which then inherits from `entity`'s).
    private func hasClassedDescendant(_ entity: EntityDescription) -> Bool {
        entity.subentities.contains { classNames[$0.name] != nil || hasClassedDescendant($0) }
    }

    /// Why a property gets no typed accessor.
    struct Skip: Error {
        let text: String
    }

    private func propertyPlan(for property: PropertyDescription) -> Result<PropertyPlan, Skip> {
        guard SwiftNames.isIdentifier(property.name) else { return .failure(Skip(text: "its name is no Swift identifier")) }
        let name = SwiftNames.identifier(property.name)
        var notes: [String] = []
        if property.isOptional { notes.append("optional") }
        if property.isTransient { notes.append("transient") }
        if let attribute = property as? AttributeDescription {
            guard let type = SwiftNames.swiftType(of: attribute.type) else {
                return .failure(
                    Skip(text: "\(SwiftNames.modelName(of: attribute.type)) has no Swift type of its own; declare it in the class file with your AttributeValueConvertible type"))
            }
            let swiftType = attribute.isOptional ? type + "?" : type
            let summary = ([SwiftNames.modelName(of: attribute.type)] + notes).joined(separator: ", ")
            return .success(PropertyPlan(key: property.name, swiftName: name, swiftType: swiftType, elementType: type, kind: .attribute, summary: summary))
        }
        if let relationship = property as? RelationshipDescription {
            let destination = objectClassName(of: relationship.destinationEntity)
            let target = relationship.destinationEntityName ?? destination
            if !relationship.isToMany {
                let summary = (["to-one \(target)"] + notes).joined(separator: ", ")
                return .success(PropertyPlan(key: property.name, swiftName: name, swiftType: destination + "?", elementType: destination, kind: .toOne, summary: summary))
            }
            if relationship.isOrdered {
                let summary = (["ordered to-many \(target)"] + notes).joined(separator: ", ")
                return .success(PropertyPlan(key: property.name, swiftName: name, swiftType: "[\(destination)]", elementType: destination, kind: .orderedToMany, summary: summary))
            }
            let summary = (["to-many \(target)"] + notes).joined(separator: ", ")
            return .success(PropertyPlan(key: property.name, swiftName: name, swiftType: "Set<\(destination)>", elementType: destination, kind: .toMany, summary: summary))
        }
        return .failure(Skip(text: "fetched properties have no typed accessor; use value(forKey:)"))
    }

    /// The key-path table of `entity`'s class: every typed property, own and inherited, and
    /// through each typed to-one, the destination's typed attributes (`\.department?.name`),
    /// which sort descriptors need as one key path. Sorted by key.
    private func keyPaths(of entity: EntityDescription) -> [KeyPathEntry] {
        var entries: [KeyPathEntry] = []
        for property in typedProperties(of: entity) {
            entries.append(KeyPathEntry(path: "." + property.swiftName, key: property.key))
            guard property.kind == .toOne, let relationship = property.relationship,
                let destination = relationship.destinationEntity
            else { continue }
            for next in typedProperties(of: destination) where next.kind == .attribute {
                entries.append(KeyPathEntry(path: ".\(property.swiftName)?.\(next.swiftName)", key: "\(property.key).\(next.key)"))
            }
        }
        return entries.sorted { $0.key < $1.key }
    }

    /// The typed properties an object of `entity`'s generated class has: from the nearest level
    /// with a class of its own up to the root (a base class also declares the properties of
    /// ancestors without a class), in declaration order.
    private func typedProperties(of entity: EntityDescription) -> [(key: String, swiftName: String, kind: PropertyPlan.Kind, relationship: RelationshipDescription?)] {
        var current: EntityDescription? = entity
        while let level = current, classNames[level.name] == nil { current = level.superentity }
        var result: [(key: String, swiftName: String, kind: PropertyPlan.Kind, relationship: RelationshipDescription?)] = []
        while let level = current {
            for property in level.properties.sorted(by: { $0.name < $1.name }) {
                guard case .success(let plan) = propertyPlan(for: property) else { continue }
                result.append((plan.key, plan.swiftName, plan.kind, property as? RelationshipDescription))
            }
            current = level.superentity
        }
        return result
    }
}
