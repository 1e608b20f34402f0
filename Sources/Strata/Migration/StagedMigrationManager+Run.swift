import Foundation
import StrataSQLite

extension StagedMigrationManager {
    /// Migrates the SQLite store at `url` to `model` through the stages, if it is at an older
    /// version; does nothing for a new or current store. Called by the coordinator before it
    /// opens the store, on the thread adding it.
    func migrateStore(at url: URL, options: [String: any Sendable], to model: ManagedObjectModel) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
        if model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
            // A crash between a stage's swap and the removal of its workspace leaves the
            // workspace beside a store that is already current.
            StoreWorkspace.removeFinished(beside: url)
            return
        }
        let candidates = (options[PersistentStoreOption.migrationSourceModels] as? [ManagedObjectModel] ?? []) + model.modelFileVersions()
        let plan = try StagedMigrationPlan(stages: stages, destination: model, candidates: candidates)
        guard let start = plan.indexOfStoreVersion(metadata) else {
            var error = StrataError(
                code: StrataError.Code.migrationMissingSourceModel,
                message: "The store's version is none of the staged migration's \(plan.versions.count) versions: add a stage that starts at the store's model",
                url: url)
            error.underlyingErrors = [StrataError(code: StrataError.Code.persistentStoreIncompatibleVersionHash, message: "Version hashes differ", url: url)]
            throw error
        }
        StoreWorkspace.removeLeftovers(beside: url)
        for index in start..<plan.steps.count {
            let from = plan.versions[index].model
            let to = plan.versions[index + 1].model
            do {
                let step = plan.steps[index]
                let kind: String
                if case .custom = step { kind = "custom" } else { kind = "lightweight" }
                try StrataTrace.span(
                    "migration stage", .migration, detail: "\(index + 1) (\(kind))",
                    arguments: TraceArguments(.text("from", plan.versions[index].checksum), .text("to", plan.versions[index + 1].checksum), .text("store", url.path))
                ) {
                    switch step {
                    case .lightweight:
                        try Self.migrateLightweight(at: url, from: from, to: to)
                    case .custom(let stage):
                        try runCustomStage(stage, storeAt: url, options: options, from: from, to: to)
                    }
                }
            } catch {
                throw StrataError.wrapping(
                    error, while: "Migrating the store from version \(plan.versions[index].checksum) to \(plan.versions[index + 1].checksum)", url: url,
                    defaultCode: StrataError.Code.migration)
            }
        }
    }

    /// Runs a custom stage on a copy of the store and puts the copy in the store's place when
    /// the handlers and the step all succeeded.
    private func runCustomStage(_ stage: CustomMigrationStage, storeAt url: URL, options: [String: any Sendable], from: ManagedObjectModel, to: ManagedObjectModel) throws {
        let workspace = try StoreWorkspace(copying: url)
        defer { workspace.discard() }
        if let handler = stage.willMigrateHandler {
            try withContainer(at: workspace.storeURL, model: from, options: options) { try handler(self, stage) }
        }
        try Self.migrateLightweight(at: workspace.storeURL, from: from, to: to)
        if let handler = stage.didMigrateHandler {
            try withContainer(at: workspace.storeURL, model: to, options: options) { try handler(self, stage) }
        }
        try workspace.replaceOriginal()
    }

    /// One lightweight step in place: the inferred mapping from `from` to `to`, run in one
    /// SQLite transaction (Stores/SQLite/SQLiteStore+Migration.swift).
    private static func migrateLightweight(at url: URL, from: ManagedObjectModel, to: ManagedObjectModel) throws {
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: from, destinationModel: to)
        _ = try SQLiteStore.migrateInPlace(at: url, from: from, to: to, mapping: mapping)
    }

    /// Opens a container on the store at `url` with `model` (no automatic migration), makes it
    /// ``container`` while `body` runs, and closes it.
    private func withContainer(at url: URL, model: ManagedObjectModel, options: [String: any Sendable], _ body: () throws -> Void) throws {
        let container = PersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
        let description = PersistentStoreDescription(url: url)
        // The store's own options (journal, history tracking, external data threshold…),
        // without the migration itself.
        for (key, value) in options where key != PersistentStoreOption.stagedMigrationManager {
            description.setOption(value, forKey: key)
        }
        description.shouldMigrateStoreAutomatically = false
        description.shouldInferMappingModelAutomatically = false
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        setContainer(container)
        defer {
            setContainer(nil)
            for store in container.persistentStoreCoordinator.persistentStores {
                try? container.persistentStoreCoordinator.remove(store)
            }
        }
        try body()
    }
}

extension StagedMigrationManager: StoreMigrationStep {}
