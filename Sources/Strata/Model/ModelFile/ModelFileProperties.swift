import Foundation

/// Attributes, relationships and fetched properties of a model file.
extension ModelFileBuilder {
    /// The traits every property shares: optional, transient, indexed, user info, renaming
    /// identifier (`elementID`) and version hash modifier.
    private func applyCommon(_ element: ModelXMLElement, to property: PropertyDescription) {
        property.isOptional = element.flag("optional")
        property.isTransient = element.flag("transient")
        property.isIndexed = element.flag("indexed")
        property.userInfo = userInfo(of: element)
        property.renamingIdentifier = element["elementID"]
        property.versionHashModifier = element["versionHashModifier"]
    }

    func attribute(_ element: ModelXMLElement, entity: String) throws -> AttributeDescription {
        let name = try required("name", of: element, entity: entity)
        let typeName = element["attributeType"] ?? "Undefined"
        if typeName == "Composite" {
            throw error("Attribute '\(entity).\(name)' is a composite attribute, which Strata does not support", at: element, entity: entity, key: name)
        }
        guard let type = ModelFileValues.attributeTypes[typeName] else {
            throw error("Attribute '\(entity).\(name)' has unknown attribute type '\(typeName)'", at: element, entity: entity, key: name)
        }
        let attribute = AttributeDescription(name: name, type: type)
        applyCommon(element, to: attribute)
        attribute.valueTransformerName = element["valueTransformerName"]
        attribute.allowsExternalBinaryDataStorage = element.flag("allowsExternalBinaryDataStorage")
        attribute.preservesValueInHistoryOnDeletion = element.flag("preserveAfterDeletion")
        attribute.regularExpression = element["regularExpressionString"]
        if element.flag("derived") { attribute.derivationExpression = element["derivationExpression"] ?? "" }

        func typed(_ key: String) throws -> (any Sendable)? {
            guard let text = element.attributes[key] else { return nil }
            if type == .string, key == "defaultValueString" { return text }
            guard !text.isEmpty else { return nil }
            guard let value = ModelFileValues.value(text, of: type) else {
                throw error("'\(text)' in \(key) of '\(entity).\(name)' is not a \(typeName) value", at: element, entity: entity, key: name)
            }
            return value
        }
        func count(_ key: String) throws -> Int? {
            guard let text = element[key] else { return nil }
            guard let value = ModelFileValues.count(text) else {
                throw error("'\(text)' in \(key) of '\(entity).\(name)' is not a whole number", at: element, entity: entity, key: name)
            }
            return value
        }
        switch type {
        case .string, .binaryData, .transformable:
            // For strings and data, Xcode's minimum and maximum are lengths.
            if type == .string { attribute.defaultValue = try typed("defaultValueString") }
            attribute.minLength = try count("minValueString")
            attribute.maxLength = try count("maxValueString")
        case .date:
            attribute.defaultValue = try typed("defaultDateTimeInterval") ?? typed("defaultValueString")
            attribute.minValue = try typed("minDateTimeInterval") ?? typed("minValueString")
            attribute.maxValue = try typed("maxDateTimeInterval") ?? typed("maxValueString")
        default:
            attribute.defaultValue = try typed("defaultValueString")
            if type.isNumeric {
                attribute.minValue = try typed("minValueString")
                attribute.maxValue = try typed("maxValueString")
            }
        }
        return attribute
    }

    func relationship(_ element: ModelXMLElement, entity: String) throws -> RelationshipDescription {
        let name = try required("name", of: element, entity: entity)
        guard let destination = element["destinationEntity"] else {
            throw error("Relationship '\(entity).\(name)' has no destination entity", at: element, entity: entity, key: name)
        }
        let ruleName = element["deletionRule"] ?? "Nullify"
        guard let rule = ModelFileValues.deleteRules[ruleName] else {
            throw error("Relationship '\(entity).\(name)' has unknown deletion rule '\(ruleName)'", at: element, entity: entity, key: name)
        }
        let toMany = element.flag("toMany")
        func count(_ key: String) throws -> Int {
            guard let text = element[key] else { return 0 }
            guard let value = ModelFileValues.count(text), value >= 0 else {
                throw error("'\(text)' in \(key) of '\(entity).\(name)' is not a count", at: element, entity: entity, key: name)
            }
            return value
        }
        // Xcode writes maxCount="1" (and sometimes minCount="1") on to-one relationships; Strata's
        // counts are for to-many relationships only.
        let relationship = RelationshipDescription(
            name: name, destinationEntityName: destination, inverse: element["inverseName"], toMany: toMany,
            isOrdered: toMany && element.flag("ordered"), deleteRule: rule,
            minCount: toMany ? try count("minCount") : 0, maxCount: toMany ? try count("maxCount") : 0)
        applyCommon(element, to: relationship)
        return relationship
    }

    func fetchedProperty(_ element: ModelXMLElement, entity: String) throws -> FetchedPropertyDescription {
        let name = try required("name", of: element, entity: entity)
        let property = FetchedPropertyDescription(name: name)
        applyCommon(element, to: property)
        property.isTransient = true
        property.isOptional = true
        if let request = element.child(named: "fetchRequest") {
            // The destination entity is checked when the model is (it may be declared later).
            property.requestStorage = try fetchRequest(request, entities: nil)
        }
        return property
    }
}
