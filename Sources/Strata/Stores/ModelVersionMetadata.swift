import Foundation

/// The version hashes a store records for the model it was made with, and the check a store
/// makes when it is opened with a model: the same for the built-in stores and stores of the
/// public seam.
extension ManagedObjectModel {
    /// The metadata a store records for this model: ``StoreMetadataKey/modelVersionHash`` (the
    /// model's version hash in lowercase hex) and ``StoreMetadataKey/entityVersionHashes`` (each
    /// entity's, by name). Callable from any thread once the model is no longer edited.
    public var versionMetadata: [String: any Sendable] {
        [
            StoreMetadataKey.modelVersionHash: versionHashHex,
            StoreMetadataKey.entityVersionHashes: entityVersionHashesByName.mapValues(\.hexString),
        ]
    }

    /// Returns when a store whose metadata is `metadata` was made with this model (its recorded
    /// ``versionMetadata`` is this model's); otherwise throws 134080 (`persistentStoreOpen`)
    /// whose message names the entities that are new, gone or changed, with a 134100
    /// (`persistentStoreIncompatibleVersionHash`) underlying error. `storeName` names the
    /// store in the message ("store", "PostgreSQL store"); `remedy` says what to do. Callable
    /// from any thread once the model is no longer edited.
    public func checkCompatibility(withStoreMetadata metadata: [String: any Sendable], storeName: String = "store", remedy: String, url: URL?) throws {
        let storeHash = metadata[StoreMetadataKey.modelVersionHash] as? String ?? ""
        let modelHash = versionHashHex
        guard storeHash != modelHash else { return }
        let storeEntities = metadata[StoreMetadataKey.entityVersionHashes] as? [String: String] ?? [:]
        let modelEntities = entityVersionHashesByName.mapValues(\.hexString)
        var differences: [String] = []
        for name in Set(storeEntities.keys).union(modelEntities.keys).sorted() {
            switch (storeEntities[name], modelEntities[name]) {
            case (nil, _): differences.append("'\(name)' is new in the model")
            case (_, nil): differences.append("'\(name)' is in the \(storeName) but not in the model")
            case (let a?, let b?) where a != b: differences.append("'\(name)' changed")
            default: break
            }
        }
        var error = StrataError(
            code: StrataError.Code.persistentStoreOpen,
            message:
                "The model used to open the \(storeName) is incompatible with the one used to create it (store model hash \(storeHash.prefix(12))…, this model \(modelHash.prefix(12))…): \(differences.isEmpty ? "versions differ" : differences.joined(separator: "; ")). \(remedy)",
            url: url)
        error.underlyingErrors = [StrataError(code: StrataError.Code.persistentStoreIncompatibleVersionHash, message: "Version hashes differ", url: url)]
        throw error
    }
}
