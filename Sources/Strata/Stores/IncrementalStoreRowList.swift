import Foundation

/// The rows of one read, in order, as a store built on ``IncrementalStore`` hands them over:
/// what an array of ``IncrementalStoreNode`` says, without an object per row. A node is one
/// allocation more than the row it carries, made and freed for every row a fetch reads; a list
/// keeps the rows themselves, and Strata's contexts take them as they are.
/// ``IncrementalStore/fetchRowList(_:options:)`` returns one.
///
/// A value type, `Sendable`: make and read it on any thread.
public struct IncrementalStoreRowList: Sendable {
    /// The rows, in order.
    private(set) var rows: [RowSnapshot]

    /// An empty list. Any thread.
    public init() { rows = [] }

    /// The rows `nodes` carry, in their order. Any thread.
    public init(_ nodes: [IncrementalStoreNode]) { rows = nodes.map(\.row) }

    /// How many rows the list holds. Any thread.
    public var count: Int { rows.count }

    /// Whether the list holds no row. Any thread.
    public var isEmpty: Bool { rows.isEmpty }

    /// The object ID of each row, in order. Any thread.
    public var objectIDs: [ManagedObjectID] { rows.map(\.objectID) }

    /// A node for each row, in order (one allocation each: for code that works with nodes). Any
    /// thread.
    public var nodes: [IncrementalStoreNode] { rows.map(IncrementalStoreNode.init(row:)) }

    /// Makes room for `minimumCapacity` rows in all, so that appending that many allocates once.
    /// Any thread.
    public mutating func reserveCapacity(_ minimumCapacity: Int) { rows.reserveCapacity(minimumCapacity) }

    /// Appends the row `node` carries. Any thread.
    public mutating func append(_ node: IncrementalStoreNode) { rows.append(node.row) }

    /// Appends the row that ``IncrementalStoreNode/init(objectID:version:columnValues:toOneTargets:)``
    /// would make a node of, from the same arguments, with the same checks: it throws where that
    /// initializer throws, and then appends nothing. Any thread.
    public mutating func append(
        objectID: ManagedObjectID, version: Int64, columnValues: [IncrementalStoreNode.ColumnValue], toOneTargets: [ManagedObjectID?]
    ) throws {
        rows.append(try IncrementalStoreNode.row(objectID: objectID, version: version, columnValues: columnValues, toOneTargets: toOneTargets))
    }

    /// Appends the rows of `other`, in order. Any thread.
    public mutating func append(contentsOf other: IncrementalStoreRowList) { rows.append(contentsOf: other.rows) }

    /// Appends the rows of `other` at `positions`, in order (positions outside `other` are left
    /// out). Any thread.
    public mutating func append(contentsOf other: IncrementalStoreRowList, positions: Range<Int>) {
        rows.append(contentsOf: other.rows[positions.clamped(to: other.rows.indices)])
    }

    /// Puts the rows in their object IDs' order (by primary key), the order in which every
    /// Strata store returns the rows of a fetch without sort descriptors. For a store that reads
    /// such rows in its database's own order (a table scan) rather than have the database sort
    /// them: one pass when they are in key order already, a sort otherwise. Any thread.
    public mutating func sortInKeyOrder() {
        guard rows.count > 1 else { return }
        var previous = rows[0].objectID
        for index in 1..<rows.count {
            let id = rows[index].objectID
            guard FetchPlan.idOrder(previous, id) else {
                rows.sort { FetchPlan.idOrder($0.objectID, $1.objectID) }
                return
            }
            previous = id
        }
    }
}
