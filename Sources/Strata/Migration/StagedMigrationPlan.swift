import Foundation

/// The versions a staged migration walks, resolved to models, and the step between each
/// version and the next.
struct StagedMigrationPlan {
    enum Step {
        /// An inferred migration in place.
        case lightweight
        /// A custom stage: handlers around an inferred step, on a copy.
        case custom(CustomMigrationStage)
    }

    struct Version {
        let checksum: String
        let model: ManagedObjectModel
    }

    /// The versions, oldest first.
    let versions: [Version]
    /// `steps[i]` migrates `versions[i]` to `versions[i + 1]`.
    let steps: [Step]

    /// Resolves the stages' checksums to models. Models come from the custom stages' references,
    /// from `destination` and the versions of the bundle it was read from, and from `candidates`.
    /// Throws when a checksum names no model, when stages do not chain, or when the last version
    /// is not `destination`.
    init(stages: [MigrationStage], destination: ManagedObjectModel, candidates: [ManagedObjectModel]) throws {
        var known: [String: ManagedObjectModel] = [:]
        func learn(_ model: ManagedObjectModel) {
            if known[model.versionChecksum] == nil { known[model.versionChecksum] = model }
        }
        for stage in stages {
            if let custom = stage as? CustomMigrationStage {
                learn(try custom.currentModel.resolvedModel())
                learn(try custom.nextModel.resolvedModel())
            }
        }
        learn(destination)
        candidates.forEach(learn)
        var checksums: [String] = []
        var steps: [Step] = []
        for stage in stages {
            let stageChecksums = stage.checksums
            guard let first = stageChecksums.first else {
                throw Self.error("A lightweight migration stage has no version checksums", stage: stage)
            }
            if let last = checksums.last, last != first {
                throw Self.error(
                    "Migration stages do not chain: the stage before ends at version \(last), this one starts at \(first)", stage: stage)
            }
            if checksums.isEmpty { checksums.append(first) }
            for checksum in stageChecksums.dropFirst() {
                checksums.append(checksum)
                steps.append((stage as? CustomMigrationStage).map(Step.custom) ?? .lightweight)
            }
        }
        guard let last = checksums.last else {
            throw StrataError(code: StrataError.Code.migrationMissingSourceModel, message: "A staged migration manager has no stages")
        }
        guard last == destination.versionChecksum else {
            throw StrataError(
                code: StrataError.Code.migrationMissingSourceModel,
                message: "The last migration stage ends at version \(last), but the model the store is added with is version \(destination.versionChecksum)")
        }
        versions = try checksums.map { checksum in
            guard let model = known[checksum] else {
                throw StrataError(
                    code: StrataError.Code.migrationMissingSourceModel,
                    message:
                        "No model has version checksum \(checksum): give it to a CustomMigrationStage, keep it in the model's .xcdatamodeld bundle, or pass it in PersistentStoreOption.migrationSourceModels"
                )
            }
            return Version(checksum: checksum, model: model)
        }
        self.steps = steps
    }

    /// The index of the version the store's metadata was written with, if it is one of them.
    func indexOfStoreVersion(_ metadata: [String: any Sendable]) -> Int? {
        // The newest match wins: two versions with equal hashes are the same schema.
        versions.lastIndex { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) }
    }

    private static func error(_ message: String, stage: MigrationStage) -> StrataError {
        StrataError(code: StrataError.Code.migration, message: message + (stage.label.map { " (stage '\($0)')" } ?? ""))
    }
}
