import Foundation
import Synchronization

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

    /// The entity and store of the ID (see ``ObjectIDSpace``): one reference for both, shared by
    /// every ID of the entity in the store.
    let space: ObjectIDSpace
    /// The primary key of a permanent ID, or the bit pattern of a temporary ID's number: one
    /// word rather than an enum (an ID is two words, 16 bytes, and every object, row and list
    /// of IDs holds IDs). ``key`` tells the two apart by ``store``.
    private let rawKey: Int64

    /// The object's entity, as IDs keep it (see ``EntityIdentity``); `entity` gives the
    /// `EntityDescription` (`Model/ManagedObjectID+Entity.swift`).
    @inline(__always) var entityIdentity: EntityIdentity { space.spaceEntity }
    /// The store of a permanent ID; nil exactly for temporary IDs.
    @inline(__always) var store: StoreToken? { space.idStore }

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

    /// A permanent ID in `space` (a store's space: see `StoreToken.space(for:)`).
    init(space: StoreIDSpace, primaryKey: Int64) {
        self.space = space
        self.rawKey = primaryKey
    }

    /// A permanent ID of `entityIdentity` in `store`. Looks the space up under the token's lock:
    /// code that makes many IDs takes the space once and uses ``init(space:primaryKey:)``.
    init(entityIdentity: EntityIdentity, primaryKey: Int64, store: StoreToken) {
        self.init(space: store.space(for: entityIdentity), primaryKey: primaryKey)
    }

    /// A new temporary ID of `entityIdentity`, unique in the process.
    init(temporaryForEntityIdentity entityIdentity: EntityIdentity) {
        self.space = entityIdentity
        self.rawKey = Int64(bitPattern: Self.nextTemporaryNumber.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    init(entityIdentity: EntityIdentity, temporaryNumber: UInt64) {
        self.space = entityIdentity
        self.rawKey = Int64(bitPattern: temporaryNumber)
    }

    /// The ID of the row `primaryKey` in this ID's store and entity (a permanent ID's space).
    func withPrimaryKey(_ primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(space: space, rawKey: primaryKey)
    }

    private init(space: ObjectIDSpace, rawKey: Int64) {
        self.space = space
        self.rawKey = rawKey
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
        guard lhs.rawKey == rhs.rawKey else { return false }
        if lhs.space === rhs.space { return true }
        guard lhs.store === rhs.store else { return false }
        let left = lhs.entityIdentity
        let right = rhs.entityIdentity
        if left === right { return true }
        // Rows of one inheritance tree share a key space: an ID made from a relationship's
        // declared destination equals the one made from the concrete entity.
        return left.sharesKeys(with: right)
    }

    /// Hashes the row key, consistently with `==`. Any thread.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(store == nil ? ~rawKey : rawKey)
    }

    public var description: String {
        "<ManagedObjectID \(uriRepresentation().absoluteString)>"
    }
}
