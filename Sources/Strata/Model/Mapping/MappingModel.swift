import Foundation

/// How to migrate a store from one model version to another: one ``EntityMapping`` per
/// destination (or removed source) entity (Core Data's `NSMappingModel`).
///
/// Build one by hand for a custom migration, or let Strata infer one
/// (`MappingModel.inferredMappingModel(forSourceModel:destinationModel:)`, the lightweight
/// case). Configure it before handing it to a migration; not thread-safe while being changed.
/// See docs/models-and-migration.md.
public final class MappingModel: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a configuration object, set up before a migration and only read during it.
    /// The entity mappings, run in this order.
    public var entityMappings: [EntityMapping]

    /// Creates a mapping model from entity mappings.
    public init(entityMappings: [EntityMapping]) {
        self.entityMappings = entityMappings
    }

    /// The entity mappings by name.
    public var entityMappingsByName: [String: EntityMapping] {
        Dictionary(entityMappings.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var description: String {
        "<MappingModel \(entityMappings.map(\.name).joined(separator: ", "))>"
    }
}
