import Foundation

/// A store added to a coordinator (Core Data's `NSPersistentStore`). Thread-safe.
public final class PersistentStore: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: immutable except `coordinator` (a weak reference set once at creation).
    /// Keys of the metadata dictionary that Strata maintains (see ``StoreMetadataKey``).
    public typealias MetadataKey = StoreMetadataKey

    /// The store's type.
    public let type: StoreType
    /// The store file, or `nil` for in-memory stores.
    public let url: URL?
    /// The configuration (group of entities) the store holds; `nil` for all entities.
    public let configurationName: String?
    /// The options the store was added with.
    public let options: [String: any Sendable]
    /// The coordinator the store belongs to.
    public internal(set) weak var persistentStoreCoordinator: PersistentStoreCoordinator?
    /// The store object: an instance of the class registered for `type`.
    public let incrementalStore: IncrementalStore
    let backend: any StoreBackend
    let entities: Set<ObjectIdentifier>

    init(
        type: StoreType, url: URL?, configurationName: String?, options: [String: any Sendable], store: IncrementalStore, backend: any StoreBackend,
        entities: [EntityDescription]
    ) {
        self.incrementalStore = store
        self.type = type
        self.url = url
        self.configurationName = configurationName
        self.options = options
        self.backend = backend
        self.entities = Set(entities.map(ObjectIdentifier.init))
    }

    /// The store's unique identifier (kept in its metadata).
    public var identifier: String { backend.token.identifier }

    /// Whether the store was opened read-only.
    public var isReadOnly: Bool { (options[PersistentStoreOption.readOnly] as? Bool) ?? false }

    /// The store's metadata: its identifier, type, model version hashes and app values.
    public var metadata: [String: any Sendable] { backend.metadata }

    /// Whether the store holds objects of `entity`.
    func holds(_ entity: EntityDescription) -> Bool { entities.contains(ObjectIdentifier(entity)) }

    public var description: String {
        "<PersistentStore \(type.rawValue) \(url?.path ?? "(memory)") id=\(identifier)>"
    }
}
