import Foundation

/// One object that could not be saved because its row changed underneath it (optimistic
/// locking), or because it collides with another row on a uniqueness constraint.
///
/// Snapshots are rendered as `[key: description]` so the conflict is `Sendable` and printable.
public struct MergeConflict: Sendable, CustomStringConvertible {
    /// The object in conflict.
    public var objectID: ManagedObjectID
    /// The row version this context last read.
    public var oldVersionNumber: Int64
    /// The row version now in the store (0 when the row was deleted).
    public var newVersionNumber: Int64
    /// The values this context last read from the store (its cached snapshot).
    public var cachedSnapshot: [String: String]
    /// The values now in the store, or `nil` if the row was deleted.
    public var persistedSnapshot: [String: String]?
    /// The object's current (unsaved) values.
    public var objectSnapshot: [String: String]
    /// For constraint conflicts: the constrained keys and the object already holding them.
    public var constraint: [String]?
    /// For constraint conflicts: the existing object the new one collides with.
    public var conflictingObjectID: ManagedObjectID?

    /// Creates a conflict record.
    public init(
        objectID: ManagedObjectID, oldVersionNumber: Int64, newVersionNumber: Int64,
        cachedSnapshot: [String: String], persistedSnapshot: [String: String]?, objectSnapshot: [String: String],
        constraint: [String]? = nil, conflictingObjectID: ManagedObjectID? = nil
    ) {
        self.objectID = objectID
        self.oldVersionNumber = oldVersionNumber
        self.newVersionNumber = newVersionNumber
        self.cachedSnapshot = cachedSnapshot
        self.persistedSnapshot = persistedSnapshot
        self.objectSnapshot = objectSnapshot
        self.constraint = constraint
        self.conflictingObjectID = conflictingObjectID
    }

    public var description: String {
        if let constraint {
            return "constraint conflict on \(objectID.entityName) \(constraint) with \(conflictingObjectID.map { $0.uriRepresentation().absoluteString } ?? "another object")"
        }
        return "conflict on \(objectID.uriRepresentation().absoluteString): read version \(oldVersionNumber), store has \(newVersionNumber == 0 ? "deleted the row" : "version \(newVersionNumber)")"
    }
}
