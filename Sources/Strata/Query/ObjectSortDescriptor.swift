import Foundation

/// Sorts fetch results by a key path (Core Data's key-based `NSSortDescriptor`).
///
/// ```swift
/// ObjectSortDescriptor(key: "name", ascending: true, comparator: .localizedStandard)
/// ObjectSortDescriptor(key: "department.name", ascending: false)
/// ```
/// The key path may go through to-one relationships. Nil values sort first in ascending order.
/// Immutable and `Sendable`.
public struct ObjectSortDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// How values are compared.
    public enum Comparator: String, Sendable, Hashable {
        /// The natural order of the values (strings byte-wise by UTF-8, as `compare:`).
        case `default`
        /// Strings ignoring case (`caseInsensitiveCompare:`).
        case caseInsensitive
        /// Finder-like order ignoring case and accents, numbers by value: "file2" < "file10"
        /// (`localizedStandardCompare:`).
        case localizedStandard
    }

    /// The key path sorted on.
    public let key: String
    /// Whether smaller values come first.
    public let ascending: Bool
    /// How values are compared.
    public let comparator: Comparator

    /// Sorts by `key` with the default comparison.
    public init(key: String, ascending: Bool = true) {
        self.init(key: key, ascending: ascending, comparator: .default)
    }

    /// Sorts by `key` with `comparator`.
    public init(key: String, ascending: Bool = true, comparator: Comparator) {
        self.key = key
        self.ascending = ascending
        self.comparator = comparator
    }

    /// The same sort in the opposite direction.
    public var reversedSortDescriptor: ObjectSortDescriptor {
        ObjectSortDescriptor(key: key, ascending: !ascending, comparator: comparator)
    }

    /// Compares two objects (or dictionaries) by this descriptor; call it on the objects' queue.
    public func compare(_ lhs: Any?, _ rhs: Any?) -> ComparisonResult {
        let components = key.split(separator: ".").map(String.init)
        let a = PredicateValue(any: KeyPathWalker.value(of: lhs, components: components[...])) ?? .null
        let b = PredicateValue(any: KeyPathWalker.value(of: rhs, components: components[...])) ?? .null
        var order: Int
        switch (a, b, comparator) {
        case (.string(let x), .string(let y), .caseInsensitive): order = StringMatching.compareCaseInsensitive(x, y)
        case (.string(let x), .string(let y), .localizedStandard): order = StringMatching.compareLocalizedStandard(x, y)
        case (.null, .null, _): order = 0
        case (.null, _, _): order = -1
        case (_, .null, _): order = 1
        default: order = (try? DynamicEvaluator.order(a, b, [])).flatMap { $0 } ?? 0
        }
        if !ascending { order = -order }
        return order < 0 ? .orderedAscending : (order > 0 ? .orderedDescending : .orderedSame)
    }

    /// `(key, ascending|descending[, comparator])`.
    public var description: String {
        "(\(key), \(ascending ? "ascending" : "descending")\(comparator == .default ? "" : ", \(comparator.rawValue)"))"
    }
}

/// A sort descriptor resolved against an entity.
struct BoundSort {
    var expression: BoundExpression
    var ascending: Bool
    var collation: ValueCollation

    /// Resolves `descriptor` on `entity`; the key path must end at an attribute reached through
    /// to-one relationships.
    static func bind(_ descriptor: ObjectSortDescriptor, entity: EntityDescription) throws -> BoundSort {
        var binder = PredicateBinder(entity: entity)
        let components = descriptor.key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
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
        case .aggregate:
            break
        default:
            throw StrataError(code: StrataError.Code.coreData, message: "Cannot sort by '\(descriptor.key)': it names a relationship, not an attribute", entityName: entity.name, key: descriptor.key)
        }
        return BoundSort(expression: expression, ascending: descriptor.ascending, collation: collation)
    }
}
