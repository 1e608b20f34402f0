import Foundation
import StrataLocks
import Synchronization

/// Identifies one store that object IDs belong to. Shared by every ID of the store.
final class StoreToken: Sendable {
    private let storedIdentifier: StrataLock<String>

    init(identifier: String) { self.storedIdentifier = StrataLock(identifier) }

    /// The store's persistent identifier (a UUID string kept in the store's metadata).
    var identifier: String { storedIdentifier.withLock { $0 } }

    /// Sets the identifier once the store has loaded its metadata (before any ID of the store
    /// exists: the token's identity is what IDs compare; the identifier is what URIs print).
    func assign(identifier: String) { storedIdentifier.withLock { $0 = identifier } }
}

/// A global, thread-safe identifier of a managed object (Core Data's `NSManagedObjectID`).
///
/// IDs are `Sendable` and `Hashable`: pass them between queues and look the object up in another
/// context with ``ManagedObjectContext/object(with:)``. An object inserted and not yet saved has a
/// *temporary* ID; the save that stores it gives it a *permanent* one (see
/// ``ManagedObjectContext/obtainPermanentIDs(for:)``).
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
    enum Key: Hashable, Sendable {
        case permanent(Int64)
        case temporary(UInt64)
    }

    /// The object's entity, as IDs keep it (see ``EntityIdentity``); `entity` gives the
    /// `EntityDescription` (`Model/ManagedObjectID+Entity.swift`).
    let entityIdentity: EntityIdentity
    /// The store of a permanent ID; nil exactly for temporary IDs.
    let store: StoreToken?
    /// The primary key of a permanent ID, or the bit pattern of a temporary ID's number: one
    /// word rather than an enum (an ID is three words, 24 bytes, and every object, row and list
    /// of IDs holds IDs). ``key`` tells the two apart by ``store``.
    private let rawKey: Int64

    /// The row's primary key (permanent) or the temporary number.
    @inline(__always) var key: Key {
        store == nil ? .temporary(UInt64(bitPattern: rawKey)) : .permanent(rawKey)
    }

    /// The primary key or the temporary number's bit pattern, without telling which (for
    /// tables keyed by number within one store or among temporary IDs).
    @inline(__always) var keyNumber: Int64 { rawKey }

    private static let nextTemporaryNumber = Atomic<UInt64>(1)
    /// Distinguishes temporary IDs of this process from those of others in URIs.
    static let processTag = UUID().uuidString

    init(entityIdentity: EntityIdentity, primaryKey: Int64, store: StoreToken) {
        self.entityIdentity = entityIdentity
        self.rawKey = primaryKey
        self.store = store
    }

    init(temporaryForEntityIdentity entityIdentity: EntityIdentity) {
        self.entityIdentity = entityIdentity
        self.rawKey = Int64(bitPattern: Self.nextTemporaryNumber.wrappingAdd(1, ordering: .relaxed).oldValue)
        self.store = nil
    }

    init(entityIdentity: EntityIdentity, temporaryNumber: UInt64) {
        self.entityIdentity = entityIdentity
        self.rawKey = Int64(bitPattern: temporaryNumber)
        self.store = nil
    }

    /// Whether the object has not been saved to a store yet.
    public var isTemporaryID: Bool { store == nil }

    /// The row's primary key, for permanent IDs.
    var primaryKey: Int64? { store == nil ? nil : rawKey }

    /// The name of the object's entity.
    public var entityName: String { entityIdentity.identityName }

    /// The identifier of the store holding the object (`nil` while temporary).
    public var storeIdentifier: String? { store?.identifier }

    /// A URI naming the object: `x-coredata://<store>/<Entity>/p<key>` (or `x-coredata:///<Entity>/t<…>`
    /// while temporary), as in Core Data. Resolve it with
    /// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
    public func uriRepresentation() -> URL {
        let text: String
        switch key {
        case .permanent(let pk):
            text = "x-coredata://\(store?.identifier ?? "")/\(entityName)/p\(pk)"
        case .temporary(let number):
            text = "x-coredata:///\(entityName)/t\(Self.processTag)-\(number)"
        }
        // Entity names are identifiers and store identifiers are UUIDs: the text is a valid URL.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// Whether two IDs name the same object: the same key in the same store (or both temporary
    /// with the same key), and the same entity or two entities of one inheritance tree (whose
    /// rows share a key space). Any thread.
    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        guard lhs.rawKey == rhs.rawKey, lhs.store === rhs.store else { return false }
        if lhs.entityIdentity === rhs.entityIdentity { return true }
        // Rows of one inheritance tree share a key space: an ID made from a relationship's
        // declared destination equals the one made from the concrete entity.
        return lhs.entityIdentity.sharesKeys(with: rhs.entityIdentity)
    }

    /// Hashes the row key, consistently with `==`. Any thread.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(store == nil ? ~rawKey : rawKey)
    }

    public var description: String {
        "<ManagedObjectID \(uriRepresentation().absoluteString)>"
    }
}
