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
    let key: Key
    let store: StoreToken?

    private static let nextTemporaryNumber = Atomic<UInt64>(1)
    /// Distinguishes temporary IDs of this process from those of others in URIs.
    static let processTag = UUID().uuidString

    init(entityIdentity: EntityIdentity, primaryKey: Int64, store: StoreToken) {
        self.entityIdentity = entityIdentity
        self.key = .permanent(primaryKey)
        self.store = store
    }

    init(temporaryForEntityIdentity entityIdentity: EntityIdentity) {
        self.entityIdentity = entityIdentity
        self.key = .temporary(Self.nextTemporaryNumber.wrappingAdd(1, ordering: .relaxed).oldValue)
        self.store = nil
    }

    init(entityIdentity: EntityIdentity, temporaryNumber: UInt64) {
        self.entityIdentity = entityIdentity
        self.key = .temporary(temporaryNumber)
        self.store = nil
    }

    /// Whether the object has not been saved to a store yet.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The row's primary key, for permanent IDs.
    var primaryKey: Int64? {
        if case .permanent(let pk) = key { return pk }
        return nil
    }

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

    public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
        guard lhs.key == rhs.key, lhs.store === rhs.store else { return false }
        if lhs.entityIdentity === rhs.entityIdentity { return true }
        // Rows of one inheritance tree share a key space: an ID made from a relationship's
        // declared destination equals the one made from the concrete entity.
        return lhs.entityIdentity.sharesKeys(with: rhs.entityIdentity)
    }

    public func hash(into hasher: inout Hasher) {
        switch key {
        case .permanent(let pk): hasher.combine(pk)
        case .temporary(let number): hasher.combine(~number)
        }
    }

    public var description: String {
        "<ManagedObjectID \(uriRepresentation().absoluteString)>"
    }
}
