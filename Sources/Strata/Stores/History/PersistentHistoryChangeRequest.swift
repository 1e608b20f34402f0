import Foundation

/// What a ``PersistentHistoryResult`` holds (Core Data's `NSPersistentHistoryResultType`).
///
/// A `Sendable` value: use it on any thread.
public enum PersistentHistoryResultType: Sendable, Hashable {
    /// `result` is `true` when the request ran.
    case statusOnly
    /// `result` is the number (`Int`) of changes fetched or deleted.
    case count
    /// `result` is `[PersistentHistoryTransaction]` without their changes (`changes` is nil).
    case transactionsOnly
    /// `result` is `[PersistentHistoryTransaction]` with their changes (the default).
    case transactionsAndChanges
}

/// A request that reads or purges the persistent history of a coordinator's stores (Core Data's
/// `NSPersistentHistoryChangeRequest`). Only stores added with
/// ``PersistentStoreOption/persistentHistoryTracking`` keep history; running the request when
/// none does is an error.
///
/// ```swift
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let transactions = try context.execute(request) as? PersistentHistoryResult
/// ```
/// Configure on one thread, then pass to `execute(_:)` on a context's queue.
public final class PersistentHistoryChangeRequest: PersistentStoreRequest {
    enum Operation {
        case fetchAfterToken(PersistentHistoryToken?)
        case fetchAfterDate(Date)
        case deleteBeforeToken(PersistentHistoryToken?)
        case deleteBeforeDate(Date)
    }

    let operation: Operation
    /// What the result holds (default `.transactionsAndChanges`; a delete gives `true` for
    /// every type but `.count`, which gives the number of changes deleted).
    public var resultType: PersistentHistoryResultType = .transactionsAndChanges
    /// The stores to read or purge, as their store objects (``PersistentStore/incrementalStore``;
    /// `nil`: every store of the coordinator that tracks history).
    public var affectedStores: [IncrementalStore]?

    init(_ operation: Operation) { self.operation = operation }

    /// The transactions committed after the one `token` stands for, in commit order (for each
    /// store; stores in the coordinator's order). `nil`, or a token that does not name a store,
    /// reads that store's whole history.
    public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetchAfterToken(token))
    }

    /// The transactions committed after `date`, in commit order.
    public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.fetchAfterDate(date))
    }

    /// The transactions committed after `transaction`, in commit order. (Not optional, unlike
    /// Core Data's, so that `fetchHistory(after: nil)` means the token form.)
    public static func fetchHistory(after transaction: PersistentHistoryTransaction) -> PersistentHistoryChangeRequest {
        fetchHistory(after: transaction.token)
    }

    /// Deletes the history up to and including the transaction `token` stands for (the token
    /// marks the end of what goes, as in Core Data); `nil` deletes all of it. A token that does
    /// not name a store leaves that store's history alone.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.deleteBeforeToken(token))
    }

    /// Deletes the transactions committed before `date`.
    public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
        PersistentHistoryChangeRequest(.deleteBeforeDate(date))
    }

    /// Deletes the history up to and including `transaction`. (Not optional, so that
    /// `deleteHistory(before: nil)` means the token form.)
    public static func deleteHistory(before transaction: PersistentHistoryTransaction) -> PersistentHistoryChangeRequest {
        deleteHistory(before: transaction.token)
    }

    /// The token the request fetches after (nil for a date, a delete, or a fetch of everything).
    public var token: PersistentHistoryToken? {
        if case .fetchAfterToken(let token) = operation { return token }
        return nil
    }

    /// `.persistentHistoryRequestType`.
    public var requestType: PersistentStoreRequestType { .persistentHistoryRequestType }
}

/// The result of a ``PersistentHistoryChangeRequest`` (Core Data's `NSPersistentHistoryResult`).
///
/// Returned by `execute(_:)` on the context's queue; its transactions are `Sendable` and may then
/// go to any thread.
public final class PersistentHistoryResult: PersistentStoreResult {
    /// `[PersistentHistoryTransaction]`, a count (`Int`) or `true`, as ``resultType`` says.
    public let result: Any?
    /// The kind of `result`.
    public let resultType: PersistentHistoryResultType

    init(resultType: PersistentHistoryResultType, result: Any?) {
        self.resultType = resultType
        self.result = result
        super.init()
    }
}
