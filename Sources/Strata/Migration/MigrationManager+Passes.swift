import Foundation

/// The three passes of a custom migration, run inside blocks of both contexts.
extension MigrationManager {
    /// Runs the instance, relationship and validation passes, then the last save.
    func runPasses(of mapping: MappingModel, source: ManagedObjectContext, destination: ManagedObjectContext) throws {
        let mappings = mapping.entityMappings.filter { $0.mappingType != .remove }
        var sourceCounts: [String: Int64] = [:]
        for entityMapping in mappings where entityMapping.mappingType != .add {
            let request = try sourceRequest(for: entityMapping)
            sourceCounts[entityMapping.name] = Int64(try sourceFailure(entityMapping) { try source.count(for: request) })
        }
        resetProgress(total: 2 * sourceCounts.values.reduce(0, +) + Int64(mappings.count))
        var unvalidated = Set<ManagedObjectID>()

        // 1. Instances.
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = try policy(for: entityMapping)
            try policyStep(entityMapping, "begin(_:with:)") { try policy.begin(entityMapping, with: self) }
            if entityMapping.mappingType != .add {
                let request = FetchRequest<ManagedObjectID>(entityName: entityMapping.sourceEntityName ?? "")
                let template = try sourceRequest(for: entityMapping)
                request.resultType = .managedObjectIDResultType
                request.predicate = template.predicate
                request.includesSubentities = template.includesSubentities
                let ids = try sourceFailure(entityMapping) { try source.fetch(request) }
                for id in ids {
                    try checkCancellation()
                    let instance = try sourceFailure(entityMapping) { try source.existingObject(with: id) }
                    try policyStep(entityMapping, "createDestinationInstances(forSource:in:manager:)", source: instance) {
                        try policy.createDestinationInstances(forSource: instance, in: entityMapping, manager: self)
                    }
                    advanceProgress(by: 1)
                    try countChange(destination: destination, source: source, unvalidated: &unvalidated)
                }
            }
            try policyStep(entityMapping, "endInstanceCreation(forMapping:manager:)") { try policy.endInstanceCreation(forMapping: entityMapping, manager: self) }
        }
        if saveBatchSize > 0 { try saveBatch(destination: destination, source: source, unvalidated: &unvalidated) }

        // 2. Relationships.
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = try policy(for: entityMapping)
            // Saved instances are kept by ID and made into objects one at a time, so a batch
            // save lets the context forget the ones already done.
            let members = associations.members(mappingName: entityMapping.name)
            let units = sourceCounts[entityMapping.name] ?? 0
            let count = Int64(members.count)
            for (index, member) in members.enumerated() {
                try checkCancellation()
                let instance = member.object(in: destination)
                try policyStep(entityMapping, "createRelationships(forDestination:in:manager:)", destination: instance) {
                    try policy.createRelationships(forDestination: instance, in: entityMapping, manager: self)
                }
                advanceProgress(by: units * Int64(index + 1) / count - units * Int64(index) / count)
                try countChange(destination: destination, source: source, unvalidated: &unvalidated)
            }
            if members.isEmpty { advanceProgress(by: units) }
            try policyStep(entityMapping, "endRelationshipCreation(forMapping:manager:)") { try policy.endRelationshipCreation(forMapping: entityMapping, manager: self) }
        }

        // 3. Validation: the policies' own, then every object's (those batch saves skipped here,
        // the rest by the last save), then `end`.
        for entityMapping in mappings {
            try checkCancellation()
            currentEntityMapping = entityMapping
            let policy = try policy(for: entityMapping)
            try policyStep(entityMapping, "performCustomValidation(forMapping:manager:)") { try policy.performCustomValidation(forMapping: entityMapping, manager: self) }
        }
        try validate(unvalidated, in: destination)
        try finalSave(destination)
        for entityMapping in mappings {
            currentEntityMapping = entityMapping
            let policy = try policy(for: entityMapping)
            try policyStep(entityMapping, "end(_:manager:)") { try policy.end(entityMapping, manager: self) }
            advanceProgress(by: 1)
        }
        currentEntityMapping = nil
    }

    /// The fetch of a mapping's source instances: its source entity, without sub-entities
    /// unless the mapping says otherwise, filtered by `sourceInstancesPredicate`.
    func sourceRequest(for entityMapping: EntityMapping) throws -> FetchRequest<ManagedObject> {
        let request = FetchRequest<ManagedObject>(entityName: entityMapping.sourceEntityName ?? "")
        request.includesSubentities = entityMapping.sourceInstancesIncludeSubentities
        request.predicate = entityMapping.sourceInstancesPredicate
        if let error = entityMapping.sourceInstancesPredicate?.syntaxError {
            throw StrataError(
                code: StrataError.Code.migrationMissingMappingModel, message: "Entity mapping '\(entityMapping.name)': its sourceInstancesPredicate does not parse: \(error.message)",
                entityName: entityMapping.sourceEntityName, underlyingErrors: [error])
        }
        return request
    }

    /// The policy of `entityMapping`, made on first use.
    func policy(for entityMapping: EntityMapping) throws -> EntityMigrationPolicy {
        if let existing = policies[entityMapping.name] { return existing }
        if entityMapping.policyClass != nil, entityMapping.entityMigrationPolicyClass == nil {
            throw StrataError(
                code: StrataError.Code.migrationMissingMappingModel,
                message: "Entity mapping '\(entityMapping.name)': its policy class \(entityMapping.policyClass.map { "\($0)" } ?? "") is not an EntityMigrationPolicy subclass")
        }
        let policy = (entityMapping.entityMigrationPolicyClass ?? EntityMigrationPolicy.self).init()
        policies[entityMapping.name] = policy
        return policy
    }

    /// Runs a policy hook; an error becomes a 134170 naming the mapping, the hook and the object
    /// (a cancellation's error goes through as it is).
    func policyStep(_ entityMapping: EntityMapping, _ hook: String, source: ManagedObject? = nil, destination: ManagedObject? = nil, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            try checkCancellation()
            let underlying = StrataError.wrapping(error, while: hook, url: nil, defaultCode: StrataError.Code.entityMigrationPolicy)
            let object = source ?? destination
            let which = object.map { " for the \(source != nil ? "source" : "destination") object \($0.objectID.uriRepresentation().absoluteString)" } ?? ""
            let policyName = "\(entityMapping.entityMigrationPolicyClass ?? EntityMigrationPolicy.self)"
            var strata = StrataError(
                code: StrataError.Code.entityMigrationPolicy,
                message: "Entity mapping '\(entityMapping.name)' (\(policyName)) failed in \(hook)\(which): \(underlying.message)",
                entityName: object?.entity.name ?? entityMapping.sourceEntityName, objectID: object?.objectID, underlyingErrors: [underlying])
            strata.key = underlying.key
            throw strata
        }
    }

    /// Runs a read of the source store; an error becomes a 134150 naming the mapping.
    func sourceFailure<T>(_ entityMapping: EntityMapping, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            let underlying = StrataError.wrapping(error, while: "Reading the source instances", url: nil)
            throw StrataError(
                code: StrataError.Code.migrationManagerSourceStore, message: "Entity mapping '\(entityMapping.name)': reading the source store failed: \(underlying.message)",
                entityName: entityMapping.sourceEntityName, underlyingErrors: [underlying])
        }
    }

    /// Counts one instance's changes and saves a batch when ``saveBatchSize`` is reached.
    private func countChange(destination: ManagedObjectContext, source: ManagedObjectContext, unvalidated: inout Set<ManagedObjectID>) throws {
        unsavedChanges += 1
        if saveBatchSize > 0, unsavedChanges >= saveBatchSize {
            try saveBatch(destination: destination, source: source, unvalidated: &unvalidated)
        }
    }

    /// Saves the destination without validation (relationships may be missing until the second
    /// pass; every object is validated before the last save) and lets both contexts forget the
    /// objects nobody holds.
    private func saveBatch(destination: ManagedObjectContext, source: ManagedObjectContext, unvalidated: inout Set<ManagedObjectID>) throws {
        let changed = destination.insertedObjects.union(destination.updatedObjects)
        destination.state.skipsSaveValidation = true
        defer { destination.state.skipsSaveValidation = false }
        do {
            try destination.save()
        } catch {
            let underlying = StrataError.wrapping(error, while: "Saving a batch of the destination", url: nil)
            throw StrataError(
                code: StrataError.Code.migrationManagerDestinationStore, message: "Saving a batch of migrated objects failed: \(underlying.message)", underlyingErrors: [underlying])
        }
        for object in changed where !object.isDeleted && !object.objectID.isTemporaryID { unvalidated.insert(object.objectID) }
        associations.settle()
        destination.refreshAllObjects()
        source.refreshAllObjects()
        unsavedChanges = 0
    }

    /// Validates the objects batch saves stored without validation.
    private func validate(_ ids: Set<ManagedObjectID>, in destination: ManagedObjectContext) throws {
        var errors: [StrataError] = []
        for id in ids.sorted(by: { $0.uriRepresentation().absoluteString < $1.uriRepresentation().absoluteString }) {
            guard let object = try? destination.existingObject(with: id), !object.isDeleted else { continue }
            do {
                try object.validateForInsert()
            } catch {
                errors.append(contentsOf: StrataError.wrapping(error, while: "Validating a migrated object", url: nil, defaultCode: StrataError.Code.managedObjectValidation).allErrors)
            }
        }
        if !errors.isEmpty { throw Self.validationFailure(errors) }
    }

    /// The last save, with the destination context's validation.
    private func finalSave(_ destination: ManagedObjectContext) throws {
        do {
            try destination.save()
        } catch {
            let underlying = StrataError.wrapping(error, while: "Saving the destination", url: nil)
            if underlying.isValidationError { throw Self.validationFailure(underlying.allErrors) }
            throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "Saving the migrated objects failed: \(underlying.message)", underlyingErrors: [underlying])
        }
        associations.settle()
    }

    private static func validationFailure(_ errors: [StrataError]) -> StrataError {
        guard let first = errors.first else {
            return StrataError(code: StrataError.Code.migration, message: "A migrated object failed validation")
        }
        let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
        return StrataError(
            code: StrataError.Code.migration, message: "A migrated object failed validation: \(first.message)\(more)", entityName: first.entityName, objectID: first.objectID,
            underlyingErrors: errors)
    }
}
