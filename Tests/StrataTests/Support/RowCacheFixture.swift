import Foundation
import StrataTestSupport

@testable import Strata

/// Object IDs and row snapshots of a frozen `Person` entity, made by hand for the row cache's
/// own tests (`Tests/StrataTests/Coordinator/RowCache*Tests.swift`).
struct RowCacheFixture {
    let entity: EntityDescription
    let token = StoreToken(identifier: "store")

    init() throws { entity = try ModelFixtures.frozenPerson() }

    func id(_ key: Int64) -> ManagedObjectID { ManagedObjectID(entityIdentity: entity, primaryKey: key, store: token) }

    func row(_ key: Int64, version: Int64 = 1) -> RowSnapshot {
        RowSnapshot.make(objectID: id(key), version: version, attributes: [.text("row \(key)"), .integer(key), .null], toOne: [])
    }
}
