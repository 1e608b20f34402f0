import Foundation

/// A fetch index of an entity: an ordered list of properties to index together (Core Data's
/// `NSFetchIndexDescription`). Immutable and `Sendable`; build it anywhere.
public struct FetchIndexDescription: Sendable, Hashable {
    /// One property of an index (Core Data's `NSFetchIndexElementDescription`).
    ///
    /// A `Sendable` value: use it on any thread.
    public struct Element: Sendable, Hashable {
        /// How the property is indexed (Core Data's `NSFetchIndexElementType`).
        ///
        /// A `Sendable` value: use it on any thread.
        public enum CollationType: String, Sendable, Hashable {
            /// An ordinary (B-tree) index.
            case binary
            /// A spatial index, for range queries over two numbers.
            case rTree
        }

        /// The name of the indexed property.
        public var propertyName: String
        /// How the property is indexed.
        public var collationType: CollationType
        /// Whether the index is in ascending order.
        public var isAscending: Bool

        /// Creates an index element.
        public init(propertyName: String, collationType: CollationType = .binary, isAscending: Bool = true) {
            self.propertyName = propertyName
            self.collationType = collationType
            self.isAscending = isAscending
        }
    }

    /// The index's name, unique within its entity.
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]
    /// A predicate limiting the index to some rows (a partial index), as written; `nil` for all.
    public var partialIndexPredicate: String?

    /// Creates an index.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
    }
}
