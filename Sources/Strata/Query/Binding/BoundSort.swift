import Foundation

/// A sort descriptor resolved against an entity.
struct BoundSort {
    var expression: BoundExpression
    var ascending: Bool
    var collation: ValueCollation

    /// Resolves `descriptor` on `entity`; the key path must end at an attribute reached through
    /// to-one relationships.
    static func bind(_ descriptor: ObjectSortDescriptor, entity: EntityDescription) throws -> BoundSort {
        let expression = try storedAttribute(descriptor.key, of: entity) ?? resolve(descriptor, entity: entity)
        var collation: ValueCollation = .binary
        switch expression {
        case .attribute(_, let attribute, _):
            if attribute.type == .decimal { collation = .decimal }
            if attribute.type == .string {
                switch descriptor.comparator {
                case .default: collation = .binary
                case .caseInsensitive: collation = .caseInsensitive
                case .localizedStandard: collation = .localizedStandard
                }
            }
        case .aggregate(let aggregate, _, let attribute):
            // @min, @max, @sum and @avg of a decimal attribute are decimals: compared as numbers.
            if aggregate != .count, attribute?.type == .decimal { collation = .decimal }
        default:
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot sort by '\(descriptor.key)': it names a relationship, not an attribute", entityName: entity.name, key: descriptor.key)
        }
        return BoundSort(expression: expression, ascending: descriptor.ascending, collation: collation)
    }

    /// The usual sort key, a stored attribute of `entity` itself, as the binder would resolve it
    /// (a fetch binds its sorts every time: this skips the binder and the key's component list);
    /// nil for any other key.
    private static func storedAttribute(_ key: String, of entity: EntityDescription) -> BoundExpression? {
        guard !key.utf8.contains(UInt8(ascii: ".")), let attribute = entity.layout.propertiesByName[key] as? AttributeDescription, !attribute.isTransient else { return nil }
        return .attribute(BoundPath(base: .root, baseEntity: entity), attribute, slot: PropertySlot.index(of: attribute, in: entity))
    }

    /// `descriptor`'s key path resolved by the predicate binder: through to-one relationships to
    /// an attribute, or to an aggregate of a to-many relationship.
    private static func resolve(_ descriptor: ObjectSortDescriptor, entity: EntityDescription) throws -> BoundExpression {
        var binder = PredicateBinder(entity: entity)
        let components = descriptor.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let resolved = try binder.resolveKeyPath(from: BoundPath(base: .root, baseEntity: entity), components: components[...])
        guard case .scalar(let expression) = resolved else {
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot sort by '\(descriptor.key)': it goes through a to-many relationship", entityName: entity.name, key: descriptor.key)
        }
        return expression
    }
}
