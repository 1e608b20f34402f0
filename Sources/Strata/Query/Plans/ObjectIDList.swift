import Foundation

/// A compact, `Sendable` list of object IDs in fetch order: primary keys (8 bytes each) plus an
/// entity code when the fetched entity has sub-entities. Used by batched fetching, where a
/// million results must not cost a million full IDs.
struct ObjectIDList: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; entities are frozen model descriptions.
    private let model: ManagedObjectModel?
    private let entity: EntityDescription
    private let store: StoreToken?
    /// The ID spaces (see `Values/ObjectIDSpace.swift`) of `entity` and the sub-entities its
    /// codes name in `store`: taken once, so that reading an ID takes no lock.
    private let spaces: [StoreIDSpace]
    private var keys: [Int64] = []
    private var codes: [UInt16]?
    /// IDs that are not permanent keys of `store` (unsaved objects), by position.
    private var others: [Int: ManagedObjectID] = [:]

    /// An empty list for rows of `entity` in `store`.
    init(entity: EntityDescription, store: StoreToken?, model: ManagedObjectModel?) {
        self.entity = entity
        self.store = store
        self.model = model
        if let store {
            let subentities = entity.layout.descendantCodes.compactMap { model?.entity(forCode: $0) }.filter { $0 !== entity }
            spaces = ([entity] + subentities).map { store.space(for: $0) }
        } else {
            spaces = []
        }
        if entity.layout.hasSubentities { codes = [] }
    }

    /// A list holding `ids`.
    init(_ ids: [ManagedObjectID], entity: EntityDescription) {
        let store = ids.first(where: { !$0.isTemporaryID })?.store
        self.init(entity: entity, store: store, model: entity.managedObjectModel)
        reserveCapacity(ids.count)
        for id in ids { append(id) }
    }

    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        codes?.reserveCapacity(count)
    }

    /// Appends a permanent key of `store` with its entity code.
    mutating func append(key: Int64, code: Int64) {
        keys.append(key)
        codes?.append(UInt16(truncatingIfNeeded: code))
    }

    mutating func append(_ id: ManagedObjectID) {
        if let key = id.primaryKey, id.store === store {
            append(key: key, code: id.entity.layout.code)
        } else {
            others[keys.count] = id
            keys.append(0)
            codes?.append(0)
        }
    }

    var count: Int { keys.count }

    subscript(index: Int) -> ManagedObjectID {
        if !others.isEmpty, let other = others[index] { return other }
        var concrete = entity
        if let codes, let model, let found = model.entity(forCode: Int64(codes[index])) { concrete = found }
        guard let store else { return ManagedObjectID(entity: concrete, temporaryNumber: 0) }
        if let space = spaces.first(where: { $0.entity === concrete }) { return ManagedObjectID(space: space, primaryKey: keys[index]) }
        return ManagedObjectID(entity: concrete, primaryKey: keys[index], store: store)
    }

    /// Every ID, materialised.
    var ids: [ManagedObjectID] { (0..<count).map { self[$0] } }
}
