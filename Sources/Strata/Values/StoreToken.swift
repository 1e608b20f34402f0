import StrataLocks

/// Identifies one store that object IDs belong to. Shared by every ID of the store (through the
/// ID's ``ObjectIDSpace``), and the maker of those spaces: one per entity while the store is open.
final class StoreToken: Sendable {
    private let storedIdentifier: StrataLock<String>
    private let spaces = StrataLock(InternedSpaces())

    /// The spaces made so far, by entity. `retired` once the store is gone: from then on each
    /// request gets a space of its own (IDs still compare equal through `ManagedObjectID.==`).
    /// A model has few entities: the spaces are found by a scan of a short array (a store that
    /// makes an ID per row it reads asks here for every row; hashing the entity for a dictionary
    /// was most of that), and by a dictionary past ``scannedLimit`` of them.
    private struct InternedSpaces: ~Copyable {
        var scanned: [StoreIDSpace] = []
        var byEntity: [ObjectIdentifier: StoreIDSpace] = [:]
        var retired = false

        static let scannedLimit = 16

        func space(of entity: EntityIdentity) -> StoreIDSpace? {
            for space in scanned where space.entity === entity { return space }
            return byEntity.isEmpty ? nil : byEntity[ObjectIdentifier(entity)]
        }

        mutating func add(_ space: StoreIDSpace, for entity: EntityIdentity) {
            if scanned.count < Self.scannedLimit { scanned.append(space) } else { byEntity[ObjectIdentifier(entity)] = space }
        }
    }

    init(identifier: String) { self.storedIdentifier = StrataLock(identifier) }

    /// The store's persistent identifier (a UUID string kept in the store's metadata).
    var identifier: String { storedIdentifier.withLock { $0 } }

    /// Sets the identifier once the store has loaded its metadata (before any ID of the store
    /// exists: the token's identity is what IDs compare; the identifier is what URIs print).
    func assign(identifier: String) { storedIdentifier.withLock { $0 = identifier } }

    /// The space of the permanent IDs of `entity` in this store: the same object for every call
    /// while the store is open. Takes a lock: code that makes many IDs asks once per entity.
    /// Any thread.
    func space(for entity: EntityIdentity) -> StoreIDSpace {
        spaces.withLock { table in
            if let space = table.space(of: entity) { return space }
            let space = StoreIDSpace(entity: entity, store: self)
            // The table holds its spaces and each space holds this token: `retire()` breaks
            // that cycle when the store goes; after it nothing is kept.
            if !table.retired { table.add(space, for: entity) }
            return space
        }
    }

    /// Drops the interned spaces (IDs that hold them keep them): called when the store that
    /// owns the token is deinitialized. Any thread.
    func retire() {
        let dropped = spaces.withLock { table in
            table.retired = true
            let dropped = (table.scanned, table.byEntity)
            table.scanned = []
            table.byEntity = [:]
            return dropped
        }
        // Released outside the lock: the last release of a space releases this token.
        withExtendedLifetime(dropped) {}
    }
}

/// The ID spaces of one store that a loop has used, so that a loop making many IDs (decoding
/// rows, listing keys) asks the token (and takes its lock) once per entity, not once per ID.
/// A value owned by one loop: not shared between threads.
struct StoreIDSpaces {
    let token: StoreToken
    /// The first space asked for (most loops meet one entity: no array to allocate), then the
    /// others; a loop meets few entities, so a scan beats hashing.
    private var first: StoreIDSpace?
    private var others: [StoreIDSpace] = []

    init(token: StoreToken) { self.token = token }

    /// The space of `entity`'s permanent IDs in the token's store.
    @inline(__always) mutating func space(for entity: EntityIdentity) -> StoreIDSpace {
        if let first, first.entity === entity { return first }
        return otherSpace(for: entity)
    }

    private mutating func otherSpace(for entity: EntityIdentity) -> StoreIDSpace {
        for space in others where space.entity === entity { return space }
        let space = token.space(for: entity)
        if first == nil { first = space } else { others.append(space) }
        return space
    }

    /// The permanent ID of the row `primaryKey` of `entity` in the token's store.
    @inline(__always) mutating func id(_ entity: EntityIdentity, primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(space: space(for: entity), primaryKey: primaryKey)
    }
}
