import Foundation

/// What happened to an object or a section of a fetched-results controller's results (Core
/// Data's `NSFetchedResultsChangeType`, with the same raw values).
///
/// A `Sendable` value: use it on any thread.
public enum FetchedResultsChangeType: UInt, Sendable {
    /// The object or section is new: it is at the new index path.
    case insert = 1
    /// The object or section left the results: it was at the old index path.
    case delete = 2
    /// The object changed place: it was at the old index path and is now at the new one.
    case move = 3
    /// The object changed without changing place (old and new index paths given).
    case update = 4
}

/// One section of a fetched-results controller's results (Core Data's
/// `NSFetchedResultsSectionInfo`). Read on the controller's context's queue.
public protocol FetchedResultsSectionInfo: AnyObject {
    /// The section's name: the description of its objects' value at the section name key path
    /// (empty for nil, and for the one section of a controller without a key path).
    var name: String { get }
    /// The section's index title (see ``AnyFetchedResultsController/sectionIndexTitle(forSectionName:)``).
    var indexTitle: String? { get }
    /// How many objects the section holds.
    var numberOfObjects: Int { get }
    /// The section's objects, in order.
    var objects: [Any]? { get }
}

extension IndexPath {
    /// An index path of an item in a section, `[section, item]`, as UIKit makes it (Foundation on
    /// Linux has no such initializer). Usable on any thread.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// An index path of a row in a section, `[section, row]`, as UIKit makes it. Usable on any
    /// thread.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section: the first index (`NSNotFound` for an empty index path).
    public var section: Int {
        get { isEmpty ? NSNotFound : self[0] }
        set { if !isEmpty { self[0] = newValue } }
    }

    /// The item in the section: the second index (`NSNotFound` when there is none).
    public var item: Int {
        get { count < 2 ? NSNotFound : self[1] }
        set { if count >= 2 { self[1] = newValue } }
    }

    /// The row in the section: the same as ``item``.
    public var row: Int {
        get { item }
        set { item = newValue }
    }
}
