/// The entity and store an object ID belongs to, shared by every ID of that entity in that store
/// so that an ID is one reference and a key (16 bytes, one retain per copy).
///
/// There are two kinds, told apart by their store (`idStore`):
/// - a temporary ID's space is its entity itself (an ``EntityIdentity``, whose `idStore` is nil):
///   no extra object, and nothing to look up when an object is inserted;
/// - a permanent ID's space is a `StoreIDSpace` holding the entity and the store's token, made
///   once per entity by the token (see `StoreToken.space(for:)` in `Values/StoreToken.swift`).
///
/// You never use this class directly (the initializer is not public). Immutable, and `Sendable`:
/// read it from any thread.
public class ObjectIDSpace: @unchecked Sendable {
    // @unchecked Sendable: immutable; subclasses say why they are Sendable.

    /// The store of the IDs in this space; nil for temporary IDs.
    let idStore: StoreToken?

    init(idStore: StoreToken?) { self.idStore = idStore }

    /// The entity of the IDs in this space.
    @inline(__always) final var spaceEntity: EntityIdentity {
        // The space of a temporary ID is its entity; every other space is a StoreIDSpace (the
        // initializer is internal and these are its only two subclasses).
        idStore == nil ? unsafeDowncast(self, to: EntityIdentity.self) : unsafeDowncast(self, to: StoreIDSpace.self).entity
    }
}

/// The space of the permanent IDs of one entity in one store: holds both strongly (an ID may
/// outlive its context, its coordinator and its store). Made by `StoreToken.space(for:)`, which
/// interns one per entity while its store is open. Immutable; any thread.
final class StoreIDSpace: ObjectIDSpace, @unchecked Sendable {
    // @unchecked Sendable: immutable; the entity is a frozen model description.
    let entity: EntityIdentity

    init(entity: EntityIdentity, store: StoreToken) {
        self.entity = entity
        super.init(idStore: store)
    }
}
