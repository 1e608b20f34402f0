import Foundation

/// The model's validation rules, applied at save.
extension ManagedObject {
    /// Validates every property; throws all failures at once (1560 when several).
    ///
    /// The model's rules run on the stored values (exact, no conversions). Then
    /// `validateValue(_:forKey:)` is called for every property of an inserted object and every
    /// changed one of an updated object (to-manys when their contents are loaded), so a subclass
    /// that overrides it adds its own rules to every save; the base implementation does not
    /// check the model's rules a second time there.
    func validateProperties() throws {
        var errors: [StrataError] = []
        let layout = entity.layout
        let attributes = layout.storedAttributes
        let values = attributeValues
        for slot in 0..<attributes.count {
            let stored = slot < values.count ? values[slot] : .null
            if Self.passesWithoutRules(attributes[slot], stored, hasValueRules: layout.storedAttributeHasValueRules[slot]) { continue }
            errors += attributeErrors(attributes[slot], stored: stored, value: nil, useStored: true)
        }
        let transients = layout.transientAttributes
        for slot in 0..<transients.count where !transients[slot].isOptional {
            let value = slot < transientValues.count ? transientValues[slot] : nil
            if AttributeCodec.unwrapOptional(value) == nil {
                errors.append(failure(StrataError.Code.validationMissingMandatoryProperty, transients[slot].name, "\(entity.name).\(transients[slot].name) is required"))
            }
        }
        let toOnes = layout.toOneRelationships
        for slot in 0..<toOnes.count where !toOnes[slot].isOptional {
            if slot >= toOneValues.count || toOneValues[slot] == nil {
                errors.append(failure(StrataError.Code.validationMissingMandatoryProperty, toOnes[slot].name, "\(entity.name).\(toOnes[slot].name) is required but has no object"))
            }
        }
        let toManys = layout.toManyRelationships
        for slot in 0..<toManys.count {
            // Unloaded relationships did not change: they passed when they were saved.
            guard slot < toManyValues.count, let value = toManyValues[slot] else { continue }
            errors += countErrors(toManys[slot], count: value.count)
        }
        errors += danglingReferenceErrors()
        if layout.hasValidationPredicates {
            for (property, slot) in layout.validatedProperties where isLoaded(slot) {
                guard !property.validationPredicates.isEmpty || !property.validationRules.isEmpty else { continue }
                errors += predicateErrors(property, value: value(at: slot))
            }
        }
        // The override point, for every property of a new object and every changed one of an
        // updated object (the model's rules were checked above). A to-many whose contents are
        // not loaded (edits recorded without reading it) is left out rather than read from the
        // store for the call; its count, predicates and rules were checked above when loaded.
        modelRulesChecked = true
        defer { modelRulesChecked = false }
        let everyProperty = change == .inserted
        for (property, slot) in layout.validatedProperties {
            if !isLoaded(slot) { continue }
            if !everyProperty, let index = layout.changeIndex(of: slot), !changedMask.contains(index) { continue }
            do {
                try validateValue(value(at: slot), forKey: property.name)
            } catch let error as StrataError {
                errors += error.allErrors
            } catch {
                errors.append(failure(StrataError.Code.managedObjectValidation, property.name, "\(entity.name).\(property.name): \(error)"))
            }
        }
        if let error = StrataError.combining(errors) { throw error }
    }

    /// References to objects that will never reach the store: objects inserted and then deleted
    /// (or removed) before any save, still held by a relationship without an inverse or with
    /// `noAction` (Core Data's "dangling reference to an invalid object"). Only unsaved
    /// destinations can be in that state, so only temporary IDs are looked at.
    private func danglingReferenceErrors() -> [StrataError] {
        var errors: [StrataError] = []
        // In a child context a temporary ID may name the parent's unsaved object: registered
        // here unchanged or updated, or not registered at all (the parent's save checks it).
        // Asked only when a temporary ID turns up (the context's parent is behind a lock).
        var isChildContext: Bool?
        func isChild() -> Bool {
            if let isChildContext { return isChildContext }
            let isChild = managedObjectContext?.parent != nil
            isChildContext = isChild
            return isChild
        }
        func isDangling(_ id: ManagedObjectID) -> Bool {
            guard id.isTemporaryID else { return false }
            guard let target = registry?.object(for: id) else { return !isChild() }
            return target.change == .deleted || (!isChild() && target.change != .inserted)
        }
        // A temporary ID can only have entered a relationship through an edit since the last
        // save, so only the changed relationships of an updated object need a look.
        let layout = entity.layout
        let toOneStart = layout.storedAttributes.count + layout.transientAttributes.count
        let toManyStart = toOneStart + layout.toOneRelationships.count
        let everyRelationship = change == .inserted
        for index in toOneStart..<(toManyStart + layout.toManyRelationships.count) where everyRelationship || changedMask.contains(index) {
            if index < toManyStart {
                let slot = index - toOneStart
                if slot < toOneValues.count, let id = toOneValues[slot], isDangling(id) {
                    errors.append(danglingFailure(layout.toOneRelationships[slot].name, id))
                }
            } else {
                let slot = index - toManyStart
                guard slot < toManyValues.count, slot < layout.toManyRelationships.count, let value = toManyValues[slot],
                    let id = value.ids.first(where: isDangling)
                else { continue }
                errors.append(danglingFailure(layout.toManyRelationships[slot].name, id))
            }
        }
        return errors
    }

    private func danglingFailure(_ key: String, _ id: ManagedObjectID) -> StrataError {
        failure(
            StrataError.Code.managedObjectValidation, key,
            "Dangling reference: \(entity.name).\(key) still holds a \(id.entity.name) that was deleted before it was ever saved; remove it from the relationship (relationships without an inverse, or with delete rule noAction, are not cleaned up)"
        )
    }

    /// Whether a property's value is at hand without loading anything (to-manys may be unloaded).
    private func isLoaded(_ slot: PropertySlot) -> Bool {
        guard case .toMany(let index) = slot else { return true }
        return index < toManyValues.count && toManyValues[index] != nil
    }

    /// Refuses a delete while a `deny` relationship still holds objects that are not deleted
    /// themselves (one error per relationship, naming the object and the relationship).
    func validateDenyRules() throws {
        var errors: [StrataError] = []
        let layout = entity.layout
        func isLive(_ id: ManagedObjectID) -> Bool {
            // An object deleted in this context is registered (the context holds it until saved).
            guard let object = registry?.object(for: id) else { return true }
            return object.change != .deleted
        }
        for (slot, relationship) in layout.toOneRelationships.enumerated() where relationship.deleteRule == .deny {
            if slot < toOneValues.count, let target = toOneValues[slot], isLive(target) {
                errors.append(
                    failure(
                        StrataError.Code.validationRelationshipDeniedDelete, relationship.name,
                        "\(entity.name) \(objectID.uriRepresentation().absoluteString) cannot be deleted: its relationship '\(relationship.name)' still points to a \(target.entity.name) (delete rule deny)"
                    ))
            }
        }
        for (slot, relationship) in layout.toManyRelationships.enumerated() where relationship.deleteRule == .deny {
            let remaining = toManyIDs(slot: slot).filter(isLive)
            if !remaining.isEmpty {
                errors.append(
                    failure(
                        StrataError.Code.validationRelationshipDeniedDelete, relationship.name,
                        "\(entity.name) \(objectID.uriRepresentation().absoluteString) cannot be deleted: its relationship '\(relationship.name)' still holds \(remaining.count) object(s) (delete rule deny)"
                    ))
            }
        }
        if let error = StrataError.combining(errors) { throw error }
    }

    /// The model's rules for one key and value (for `validateValue(_:forKey:)`).
    func validateModelRules(_ value: Any?, forKey key: String) throws {
        guard let property = entity.layout.propertiesByName[key] else {
            throw failure(StrataError.Code.managedObjectValidation, key, "\(entity.name) has no property '\(key)'")
        }
        var errors: [StrataError] = []
        switch property {
        case let attribute as AttributeDescription:
            if attribute.isTransient {
                if AttributeCodec.unwrapOptional(value) == nil && !attribute.isOptional {
                    errors.append(failure(StrataError.Code.validationMissingMandatoryProperty, key, "\(entity.name).\(key) is required"))
                }
            } else {
                switch AttributeCodec.encode(value, for: attribute) {
                case .success(let stored): errors += attributeErrors(attribute, stored: stored, value: value, useStored: true)
                case .failure(let problem): errors.append(failure(problem.code, key, problem.message))
                }
            }
        case let relationship as RelationshipDescription:
            let unwrapped = AttributeCodec.unwrapOptional(value)
            if relationship.isToMany {
                let count: Int
                switch unwrapped {
                case let set as Set<ManagedObject>: count = set.count
                case let array as [ManagedObject]: count = array.count
                default: count = 0
                }
                errors += countErrors(relationship, count: count)
            } else if unwrapped == nil && !relationship.isOptional {
                errors.append(failure(StrataError.Code.validationMissingMandatoryProperty, key, "\(entity.name).\(key) is required but has no object"))
            }
        default:
            break
        }
        errors += predicateErrors(property, value: AttributeCodec.unwrapOptional(value))
        if let error = StrataError.combining(errors) { throw error }
    }

    private func failure(_ code: Int, _ key: String, _ message: String) -> StrataError {
        StrataError(code: code, message: message, entityName: entity.name, key: key, objectID: objectID)
    }

    private func countErrors(_ relationship: RelationshipDescription, count: Int) -> [StrataError] {
        var errors: [StrataError] = []
        let key = relationship.name
        if !relationship.isOptional && count == 0 && relationship.minCount == 0 {
            errors.append(failure(StrataError.Code.validationRelationshipLacksMinimumCount, key, "\(entity.name).\(key) is required but holds no objects"))
        }
        if relationship.minCount > 0 && count < relationship.minCount && !(relationship.isOptional && count == 0) {
            errors.append(failure(StrataError.Code.validationRelationshipLacksMinimumCount, key, "\(entity.name).\(key) holds \(count) object(s); at least \(relationship.minCount) required"))
        }
        if relationship.maxCount > 0 && count > relationship.maxCount {
            errors.append(failure(StrataError.Code.validationRelationshipExceedsMaximumCount, key, "\(entity.name).\(key) holds \(count) object(s); at most \(relationship.maxCount) allowed"))
        }
        return errors
    }

    /// Failures of the validation predicates and rules. A nil value (an unset optional
    /// property) is not checked, as in Core Data: whether it may be nil is `isOptional`'s job.
    private func predicateErrors(_ property: PropertyDescription, value: Any?) -> [StrataError] {
        guard let value = AttributeCodec.unwrapOptional(value) else { return [] }
        var errors: [StrataError] = []
        for (index, predicate) in property.validationPredicates.enumerated() {
            let passed: Bool
            if let error = predicate.syntaxError {
                errors.append(failure(StrataError.Code.managedObjectValidation, property.name, "Validation predicate of \(entity.name).\(property.name) is malformed: \(error.message)"))
                continue
            }
            do {
                passed = try predicate.evaluate(throwingWith: value)
            } catch {
                passed = false
            }
            if !passed {
                let warning = index < property.validationWarnings.count ? property.validationWarnings[index] : "\(entity.name).\(property.name) fails \(predicate.predicateFormat)"
                errors.append(failure(StrataError.Code.managedObjectValidation, property.name, warning))
            }
        }
        for rule in property.validationRules where !rule.passes(value) {
            errors.append(failure(StrataError.Code.managedObjectValidation, property.name, rule.message))
        }
        return errors
    }

    /// Required, integer range, min/max, length and pattern checks of one attribute.
    /// Whether `stored` passes `attribute`'s rules without looking further: a value of an
    /// attribute without rules of its own (range, length, pattern) that fits its type. The
    /// common case, checked inline: no decoding, no strings, no error array.
    @inline(__always)
    private static func passesWithoutRules(_ attribute: AttributeDescription, _ stored: StoredValue, hasValueRules: Bool) -> Bool {
        guard !stored.isNull && !hasValueRules else { return false }
        switch attribute.type {
        case .integer16, .integer32:
            if case .integer(let int) = stored, let range = attribute.type.integerRange { return range.contains(int) }
            return false
        default:
            return true
        }
    }

    private func attributeErrors(_ attribute: AttributeDescription, stored: StoredValue, value: Any?, useStored: Bool) -> [StrataError] {
        if Self.passesWithoutRules(attribute, stored, hasValueRules: attribute.hasValueRules) { return [] }
        let key = attribute.name
        let name = "\(entity.name).\(key)"
        if stored.isNull {
            return attribute.isOptional ? [] : [failure(StrataError.Code.validationMissingMandatoryProperty, key, "\(name) is required")]
        }
        var errors: [StrataError] = []
        let decoded = AttributeCodec.decode(stored, for: attribute)
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            if case .integer(let int) = stored, let range = attribute.type.integerRange {
                if int > range.upperBound {
                    errors.append(failure(StrataError.Code.validationNumberTooLarge, key, "\(int) is too large for \(name) (\(attribute.type.rawValue) holds up to \(range.upperBound))"))
                } else if int < range.lowerBound {
                    errors.append(failure(StrataError.Code.validationNumberTooSmall, key, "\(int) is too small for \(name) (\(attribute.type.rawValue) holds down to \(range.lowerBound))"))
                }
            }
            errors += rangeErrors(attribute, stored: stored)
        case .double, .float, .decimal:
            errors += rangeErrors(attribute, stored: stored)
        case .date:
            if let date = decoded as? Date {
                if let minimum = attribute.minValue as? Date, date < minimum {
                    errors.append(failure(StrataError.Code.validationDateTooSoon, key, "\(name) is \(date), before the earliest allowed \(minimum)"))
                }
                if let maximum = attribute.maxValue as? Date, date > maximum {
                    errors.append(failure(StrataError.Code.validationDateTooLate, key, "\(name) is \(date), after the latest allowed \(maximum)"))
                }
            }
        case .string:
            if let text = decoded as? String {
                let length = text.count
                if let minimum = attribute.minLength, length < minimum {
                    errors.append(failure(StrataError.Code.validationStringTooShort, key, "\(name) has \(length) character(s); at least \(minimum) required"))
                }
                if let maximum = attribute.maxLength, length > maximum {
                    errors.append(failure(StrataError.Code.validationStringTooLong, key, "\(name) has \(length) character(s); at most \(maximum) allowed"))
                }
                // The pattern matches as `SELF MATCHES pattern` does (whole string, same options).
                if let pattern = attribute.regularExpression, let matched = try? StringMatching.matches(text, pattern, []) {
                    if !matched {
                        errors.append(failure(StrataError.Code.validationStringPatternMatching, key, "\(name) \"\(text)\" does not match the pattern \(pattern)"))
                    }
                }
            }
        case .binaryData:
            if let data = decoded as? Data {
                if let minimum = attribute.minLength, data.count < minimum {
                    errors.append(failure(StrataError.Code.validationStringTooShort, key, "\(name) has \(data.count) byte(s); at least \(minimum) required"))
                }
                if let maximum = attribute.maxLength, data.count > maximum {
                    errors.append(failure(StrataError.Code.validationStringTooLong, key, "\(name) has \(data.count) byte(s); at most \(maximum) allowed"))
                }
            }
        default:
            break
        }
        return errors
    }

    private func rangeErrors(_ attribute: AttributeDescription, stored: StoredValue) -> [StrataError] {
        var errors: [StrataError] = []
        let name = "\(entity.name).\(attribute.name)"
        let collation: ValueCollation = attribute.type == .decimal ? .decimal : .binary
        if let minimum = attribute.minValue, case .success(let bound) = AttributeCodec.encode(minimum, for: attribute),
            ValueOrdering.compare(stored, bound, collation: collation) < 0
        {
            errors.append(failure(StrataError.Code.validationNumberTooSmall, attribute.name, "\(name) is below its minimum \(minimum)"))
        }
        if let maximum = attribute.maxValue, case .success(let bound) = AttributeCodec.encode(maximum, for: attribute),
            ValueOrdering.compare(stored, bound, collation: collation) > 0
        {
            errors.append(failure(StrataError.Code.validationNumberTooLarge, attribute.name, "\(name) is above its maximum \(maximum)"))
        }
        return errors
    }
}
