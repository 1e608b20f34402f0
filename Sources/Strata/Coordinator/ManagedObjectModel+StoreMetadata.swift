import Foundation

/// Comparing a model with a store's metadata. It lives beside the coordinator, not in the
/// model: the metadata keys are the stores' business.
extension ManagedObjectModel {
    /// Whether a store with `metadata` (from ``PersistentStoreCoordinator/metadataForPersistentStore(type:at:)``
    /// or ``PersistentStore/metadata``) can be opened with the entities of configuration `name`
    /// (`nil`: the whole model) without migration: every entity of the configuration has the
    /// version hash the store recorded for it (``EntityDescription/versionHash``, which
    /// `versionHashModifier` changes), and for the whole model the store records no other
    /// entity (Core Data's `isConfiguration(withName:compatibleWithStoreMetadata:)`).
    /// Metadata without entity version hashes is compatible with nothing. Callable from any
    /// thread once the model is no longer edited.
    public func isConfiguration(withName name: String?, compatibleWithStoreMetadata metadata: [String: Any]) -> Bool {
        let recorded: [String: String]
        if let hex = metadata[StoreMetadataKey.entityVersionHashes] as? [String: String] {
            recorded = hex
        } else if let data = metadata[StoreMetadataKey.entityVersionHashes] as? [String: Data] {
            recorded = data.mapValues(\.hexString)
        } else {
            return false
        }
        let entities = entities(forConfigurationName: name)
        for entity in entities where recorded[entity.name] != entity.versionHash.hexString { return false }
        return name != nil || recorded.count == entities.count
    }
}
