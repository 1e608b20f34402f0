/// An entity as object IDs carry it: its name and the key space its rows share.
///
/// Every `EntityDescription` is an `EntityIdentity`; nothing else is (the initializer is not
/// public). Object IDs hold their entity through this class so that `ManagedObjectID`, and
/// everything below the model that passes IDs around (stores, errors, plans), does not depend on
/// the model; ``ManagedObjectID/entity`` turns it back into the `EntityDescription`. An entity
/// is also the ``ObjectIDSpace`` of its temporary IDs. You never use this class directly.
///
/// Immutable once its model is frozen, and `Sendable`: read it from any thread.
public class EntityIdentity: ObjectIDSpace, @unchecked Sendable {
    // @unchecked Sendable: no stored state of its own; subclasses say why they are Sendable.
    init() { super.init(idStore: nil) }

    /// The entity's name (overridden by `EntityDescription`).
    var identityName: String { "" }

    /// Whether rows of this entity and of `other` share one key space (one inheritance tree),
    /// so that equal primary keys name the same row. Overridden by `EntityDescription`.
    func sharesKeys(with other: EntityIdentity) -> Bool { self === other }
}
