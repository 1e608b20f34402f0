/// Keys of the metadata dictionary that Strata maintains, also reachable as
/// `PersistentStore.MetadataKey`. Every store writes them into the metadata it returns.
///
/// Constants: use them on any thread.
public enum StoreMetadataKey {
    /// The store's unique identifier (`NSStoreUUIDKey`).
    public static let storeUUID = "NSStoreUUID"
    /// The store type's name (`NSStoreTypeKey`).
    public static let storeType = "NSStoreType"
    /// The hex version hash of the model the store was made with.
    public static let modelVersionHash = "StrataModelVersionHash"
    /// `[entity name: hex version hash]` of the model the store was made with.
    public static let entityVersionHashes = "NSStoreModelVersionHashes"

    /// The keys Strata owns; an app's metadata cannot change them.
    static let strataKeys = [storeUUID, storeType, modelVersionHash, entityVersionHashes]
}
