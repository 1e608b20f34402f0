import StrataTestSupport
import Testing

@testable import Strata

extension ModelFixtures {
    /// The `Person` entity of a `people()` model frozen by opening a stack with it: for tests
    /// that make object IDs and row snapshots by hand (an entity's layout exists once its model
    /// is frozen).
    static func frozenPerson() throws -> EntityDescription {
        let model = people()
        _ = try TestStack(model: model)
        return try #require(model.entitiesByName["Person"])
    }
}
