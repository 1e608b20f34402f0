import Foundation

/// What the in-memory evaluator needs from an object or a stored row: its stored values by
/// slot and its relationships. Managed objects (for pending changes) and the in-memory store's
/// rows both provide it. Used on one queue at a time.
protocol EvaluationRow {
    /// The row's object ID.
    var evaluationObjectID: ManagedObjectID { get }
    /// A stored attribute by slot of the row's entity layout.
    func evaluationAttribute(slot: Int) -> StoredValue
    /// The target ID of a to-one relationship by slot.
    func evaluationToOneID(slot: Int) -> ManagedObjectID?
    /// The row at the other end of a to-one relationship.
    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)?
    /// The rows of a to-many relationship.
    func evaluationToManyRows(slot: Int) -> [any EvaluationRow]
}
