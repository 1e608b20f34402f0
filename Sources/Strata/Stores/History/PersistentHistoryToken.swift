import Foundation

/// A bookmark in the persistent history (Core Data's `NSPersistentHistoryToken`): for each store
/// it names, the number of the last transaction it stands for. Pass it to
/// ``PersistentHistoryChangeRequest/fetchHistory(after:)-(PersistentHistoryToken?)`` to read only what
/// came later. A transaction's token names its own store; the coordinator's
/// ``PersistentStoreCoordinator/currentPersistentHistoryToken(fromStores:)`` names every store
/// that tracks history. Tokens are `Codable`: keep one (in a file, in user defaults) and it
/// still means the same place after a restart, as long as the store file is the same (the store
/// identifier is part of it). Transaction numbers only grow within a store, so two tokens of one
/// store compare by ``transactionNumber(forStoreIdentifier:)``. An immutable value: use it on any
/// queue.
public struct PersistentHistoryToken: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Transaction number by store identifier (``PersistentStore/identifier``).
    let storeTokens: [String: Int64]

    init(storeTokens: [String: Int64]) { self.storeTokens = storeTokens }

    init(store: String, transactionNumber: Int64) { self.storeTokens = [store: transactionNumber] }

    /// The identifiers of the stores the token names.
    public var storeIdentifiers: [String] { storeTokens.keys.sorted() }

    /// The number of the last transaction of the store with identifier `store` the token stands
    /// for (`nil` when the token does not name that store).
    public func transactionNumber(forStoreIdentifier store: String) -> Int64? { storeTokens[store] }

    public var description: String {
        "<PersistentHistoryToken " + storeTokens.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ", ") + ">"
    }
}
