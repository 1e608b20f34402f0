import Foundation

/// `migrateStore`: opening the two stores, running the passes, and cleaning up on failure.
extension MigrationManager {
    /// Migrates the store at `sourceURL` (made with ``sourceModel``) into a new store at
    /// `destinationURL` (with ``destinationModel``), through `mapping`.
    ///
    /// The source is opened read-only on its own coordinator and private-queue context; the
    /// destination is created, and must not exist yet. The mappings run in their order in three
    /// passes (see ``EntityMigrationPolicy``): instances, relationships, validation. The
    /// destination is saved every ``saveBatchSize`` changes and once at the end. On any error —
    /// a policy throws, validation fails, ``cancelMigrationWithError(_:)`` — the destination
    /// files are removed, the source is untouched, and a ``StrataError`` is thrown: 134140 for
    /// an unusable mapping model, 134150 when the source cannot be opened, 134160 when the
    /// destination cannot be created or saved, 134170 naming the mapping and source object a
    /// policy failed on, 134110 for validation (the object's errors underneath), 134120 (or the
    /// error given) for a cancellation. Runs on the calling thread, which must not be inside a
    /// `perform` block of a context of either store.
    public func migrateStore(
        from sourceURL: URL, type sourceType: StoreType, options sourceOptions: [String: any Sendable]? = nil, mapping: MappingModel,
        to destinationURL: URL, type destinationType: StoreType, options destinationOptions: [String: any Sendable]? = nil
    ) throws {
        let started = shared.withLock { state -> Bool in
            defer { state.running = true }
            return !state.running
        }
        guard started else {
            throw StrataError(code: StrataError.Code.migration, message: "This migration manager is already running a migration; use one manager per migration", url: sourceURL)
        }
        defer { shared.withLock { $0.running = false } }
        try checkMapping(mapping)
        if sourceURL.standardizedFileURL == destinationURL.standardizedFileURL {
            throw StrataError(
                code: StrataError.Code.migrationManagerDestinationStore,
                message: "The destination of a migration must be a new store, not the source itself (use migrateStoreInPlace(at:type:options:mapping:))", url: destinationURL)
        }
        if destinationType == .sqlite, FileManager.default.fileExists(atPath: destinationURL.path) {
            throw StrataError(code: StrataError.Code.migrationManagerDestinationStore, message: "A file already exists at the migration's destination; it is left as it is", url: destinationURL)
        }
        let source = try openSource(at: sourceURL, type: sourceType, options: sourceOptions)
        let destination: (PersistentStoreCoordinator, PersistentStore)
        do {
            destination = try openDestination(at: destinationURL, type: destinationType, options: destinationOptions)
        } catch {
            try? source.0.remove(source.1)
            throw error
        }
        let sourceContext = ManagedObjectContext(concurrencyType: .privateQueue)
        sourceContext.persistentStoreCoordinator = source.0
        sourceContext.name = "MigrationManager.source"
        let destinationContext = ManagedObjectContext(concurrencyType: .privateQueue)
        destinationContext.persistentStoreCoordinator = destination.0
        destinationContext.name = "MigrationManager.destination"
        self.mappingModel = mapping
        self.sourceContext = sourceContext
        self.destinationContext = destinationContext
        associations = MigrationAssociations()
        policies = [:]
        unsavedChanges = 0
        defer {
            self.sourceContext = nil
            self.destinationContext = nil
            currentEntityMapping = nil
            associations = MigrationAssociations()
            policies = [:]
        }
        do {
            try sourceContext.performAndWait {
                try destinationContext.performAndWait {
                    try StrataTrace.span(
                        "custom migration", .migration,
                        arguments: TraceArguments(
                            .text("source", sourceURL.path), .text("destination", destinationURL.path), .number("entityMappings", mapping.entityMappings.count)
                        )
                    ) { try runPasses(of: mapping, source: sourceContext, destination: destinationContext) }
                }
            }
        } catch {
            sourceContext.performAndWait { sourceContext.reset() }
            destinationContext.performAndWait { destinationContext.reset() }
            try? source.0.remove(source.1)
            try? destination.0.remove(destination.1)
            if destinationType == .sqlite { Self.removeStoreFiles(at: destinationURL) }
            throw error
        }
        sourceContext.performAndWait { sourceContext.reset() }
        destinationContext.performAndWait { destinationContext.reset() }
        try? source.0.remove(source.1)
        try? destination.0.remove(destination.1)
        finishProgress()
    }

    /// Refuses a mapping model the passes cannot run: an undefined mapping, a missing entity.
    func checkMapping(_ mapping: MappingModel) throws {
        var names = Set<String>()
        for entityMapping in mapping.entityMappings {
            func refuse(_ why: String) -> StrataError {
                StrataError(code: StrataError.Code.migrationMissingMappingModel, message: "Entity mapping '\(entityMapping.name)': \(why)", entityName: entityMapping.sourceEntityName)
            }
            guard names.insert(entityMapping.name).inserted else { throw refuse("the name is used by two mappings of the mapping model") }
            if entityMapping.mappingType == .undefined { throw refuse("its mapping type is undefined") }
            let needsSource = entityMapping.mappingType != .add
            let needsDestination = entityMapping.mappingType != .remove
            if needsSource {
                guard let name = entityMapping.sourceEntityName, sourceModel.entitiesByName[name] != nil else {
                    throw refuse("the source entity '\(entityMapping.sourceEntityName ?? "")' is not in the source model")
                }
            }
            if needsDestination {
                guard let name = entityMapping.destinationEntityName, destinationModel.entitiesByName[name] != nil else {
                    throw refuse("the destination entity '\(entityMapping.destinationEntityName ?? "")' is not in the destination model")
                }
            }
        }
    }

    private func openSource(at url: URL, type: StoreType, options: [String: any Sendable]?) throws -> (PersistentStoreCoordinator, PersistentStore) {
        var options = options ?? [:]
        options[PersistentStoreOption.readOnly] = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel, name: "MigrationManager.source")
        do {
            let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
            return (coordinator, store)
        } catch {
            throw Self.storeError(error, code: StrataError.Code.migrationManagerSourceStore, what: "Opening the migration's source store with the source model", url: url)
        }
    }

    private func openDestination(at url: URL, type: StoreType, options: [String: any Sendable]?) throws -> (PersistentStoreCoordinator, PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel, name: "MigrationManager.destination")
        do {
            let store = try coordinator.addPersistentStore(type: type, at: url, options: options)
            return (coordinator, store)
        } catch {
            if type == .sqlite { Self.removeStoreFiles(at: url) }
            throw Self.storeError(error, code: StrataError.Code.migrationManagerDestinationStore, what: "Creating the migration's destination store with the destination model", url: url)
        }
    }

    static func storeError(_ error: any Error, code: Int, what: String, url: URL) -> StrataError {
        let underlying = StrataError.wrapping(error, while: what, url: url)
        return StrataError(code: code, message: "\(what) failed: \(underlying.message)", url: url, underlyingErrors: [underlying])
    }

    /// Removes a SQLite store's file and the files SQLite keeps beside it.
    static func removeStoreFiles(at url: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: url.path + suffix)
        }
    }
}
