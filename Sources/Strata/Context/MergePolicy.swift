/// How a save resolves conflicts with changes made elsewhere (Core Data's `NSMergePolicy`).
///
/// - `.error`: the save fails with a merge-conflict error (133020) listing each conflict.
/// - `.mergeByPropertyStoreTrump`: per property, the store's changed values win; the object's
///   other changes are kept.
/// - `.mergeByPropertyObjectTrump`: per property, the object's changed values win; other
///   properties take the store's values.
/// - `.overwrite`: the object's whole state is written, whatever the store holds.
/// - `.rollback`: the object's changes are discarded in favour of the store's state.
///
/// A `Sendable` value: use it on any thread. Set a context's ``ManagedObjectContext/mergePolicy``
/// on the context's queue.
public struct MergePolicy: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of policy.
    ///
    /// A `Sendable` value: use it on any thread.
    public enum Kind: String, Sendable, Hashable {
        /// Fail the save with a merge-conflict error (133020) listing each conflict.
        case error
        /// Per property, the store's changed values win; the object's other changes are kept.
        case mergeByPropertyStoreTrump
        /// Per property, the object's changed values win; other properties take the store's values.
        case mergeByPropertyObjectTrump
        /// The object's whole state is written, whatever the store holds.
        case overwrite
        /// The object's changes are discarded in favour of the store's state.
        case rollback
    }

    /// The policy's kind.
    public let kind: Kind

    /// Creates a policy of `kind`.
    public init(_ kind: Kind) { self.kind = kind }

    /// Fail the save on any conflict (the default).
    public static let error = MergePolicy(.error)
    /// Per property, the store's values win.
    public static let mergeByPropertyStoreTrump = MergePolicy(.mergeByPropertyStoreTrump)
    /// Per property, the object's values win.
    public static let mergeByPropertyObjectTrump = MergePolicy(.mergeByPropertyObjectTrump)
    /// The object's state replaces the store's.
    public static let overwrite = MergePolicy(.overwrite)
    /// The store's state replaces the object's.
    public static let rollback = MergePolicy(.rollback)

    public var description: String { kind.rawValue }
}
