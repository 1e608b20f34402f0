import Foundation

/// A sort descriptor resolved against an entity.
struct BoundSort {
    var expression: BoundExpression
    var ascending: Bool
    var collation: ValueCollation

    /// Resolves `descriptor` on `entity`; the key path must end at an attribute reached through
    /// to-one relationships.
    static func bind(_ descriptor: ObjectSortDescriptor, entity: EntityDescription) throws -> BoundSort {
        var binder = PredicateBinder(entity: entity)
        // A plain key (the usual sort) is its own only component: no split.
        let components = descriptor.key.utf8.contains(UInt8(ascii: ".")) ? descriptor.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init) : [descriptor.key]
        let resolved = try binder.resolveKeyPath(from: BoundPath(base: .root, baseEntity: entity), components: components[...])
        guard case .scalar(let expression) = resolved else {
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot sort by '\(descriptor.key)': it goes through a to-many relationship", entityName: entity.name, key: descriptor.key)
        }
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
}
