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
    ///
    /// A `Sendable` value: use it on any thread.
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
