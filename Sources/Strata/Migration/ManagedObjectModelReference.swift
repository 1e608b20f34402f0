import Foundation

/// A model version named by its checksum, for a ``CustomMigrationStage`` (Core Data's
/// `NSManagedObjectModelReference`). The model is given directly or read from a model file;
/// its ``ManagedObjectModel/versionChecksum`` must be the one given, which the migration checks
/// before it starts (a mismatch is an error naming both). Any thread.
public final class ManagedObjectModelReference: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: immutable after init (the model is read lazily once, under a lock).
    /// The checksum the model must have.
    public let versionChecksum: String
    private let source: Source
    private let resolved = NSLock()
    nonisolated(unsafe) private var cached: ManagedObjectModel?

    private enum Source {
        case model(ManagedObjectModel)
        case file(URL)
    }

    /// A reference to `model`, expected to have `versionChecksum`.
    public init(model: ManagedObjectModel, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        self.source = .model(model)
    }

    /// A reference to the model in the file at `fileURL` (an `.xcdatamodel` version directory or
    /// its `contents` file), expected to have `versionChecksum`. The file is read when the
    /// migration needs it.
    public init(fileURL: URL, versionChecksum: String) {
        self.versionChecksum = versionChecksum
        self.source = .file(fileURL)
    }

    /// The model, read from its file on first use; throws when the file cannot be read or the
    /// model's checksum is not ``versionChecksum``.
    public func resolvedModel() throws -> ManagedObjectModel {
        resolved.lock()
        defer { resolved.unlock() }
        if let cached { return cached }
        let model: ManagedObjectModel
        switch source {
        case .model(let given): model = given
        case .file(let url): model = try ManagedObjectModel(contentsOf: url)
        }
        guard model.versionChecksum == versionChecksum else {
            throw StrataError(
                code: StrataError.Code.migrationMissingSourceModel,
                message: "A migration stage's model reference expects version checksum \(versionChecksum), but the model has \(model.versionChecksum)")
        }
        cached = model
        return model
    }

    public var description: String {
        "<ManagedObjectModelReference \(versionChecksum)>"
    }
}
