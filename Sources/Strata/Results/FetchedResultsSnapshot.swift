/// A fetched-results controller's results as identifiers: section names and, in each, the
/// object IDs in order (the shape of Core Data's diffable-data-source snapshot). A value:
/// `Sendable`, so it may be handed to any queue or task, and `Equatable`, so two can be compared.
public struct FetchedResultsSnapshot: Sendable, Equatable {
    /// The section names, in order.
    public let sectionIdentifiers: [String]
    /// The object IDs of each section, in the order of ``sectionIdentifiers``.
    let items: [[ManagedObjectID]]

    /// Creates a snapshot from section names and the object IDs in each section.
    public init(sections: [(identifier: String, items: [ManagedObjectID])]) {
        sectionIdentifiers = sections.map(\.identifier)
        items = sections.map(\.items)
    }

    /// The object IDs of the section named `identifier`, in order (empty if there is no such
    /// section).
    public func itemIdentifiers(inSection identifier: String) -> [ManagedObjectID] {
        guard let index = sectionIdentifiers.firstIndex(of: identifier) else { return [] }
        return items[index]
    }

    /// Every object ID, section after section.
    public var itemIdentifiers: [ManagedObjectID] { items.flatMap { $0 } }

    /// The number of sections.
    public var numberOfSections: Int { sectionIdentifiers.count }

    /// The number of objects.
    public var numberOfItems: Int { items.reduce(0) { $0 + $1.count } }

    /// The position of the section named `identifier`, if there is one.
    public func indexOfSection(_ identifier: String) -> Int? { sectionIdentifiers.firstIndex(of: identifier) }

    public static func == (lhs: FetchedResultsSnapshot, rhs: FetchedResultsSnapshot) -> Bool {
        lhs.sectionIdentifiers == rhs.sectionIdentifiers && lhs.items == rhs.items
    }
}
