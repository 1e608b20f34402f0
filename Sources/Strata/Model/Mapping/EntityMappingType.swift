import Foundation

/// What an entity mapping does with the source entity's instances (Core Data's
/// `NSEntityMappingType`).
///
/// A `Sendable` value: use it on any thread.
public enum EntityMappingType: String, Sendable, Hashable {
    /// Not yet decided; a mapping model with such a mapping is refused.
    case undefined
    /// An ``EntityMigrationPolicy`` subclass creates the destination instances.
    case custom
    /// The destination entity is new: no source instances.
    case add
    /// The source entity is gone: its instances are dropped.
    case remove
    /// The entity is unchanged: instances are copied as they are.
    case copy
    /// The entity changed: instances are copied through the property mappings.
    case transform
}
