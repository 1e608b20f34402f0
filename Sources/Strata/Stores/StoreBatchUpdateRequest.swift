import Foundation

/// A batch update as a store of the public seam receives it
/// (``IncrementalStore/executeBatchUpdate(_:)``): which rows, and the new value of each
/// attribute it sets, already checked against the model (known stored attributes, values of
/// the right types, constants within range, required attributes not set to nil). Immutable;
/// usable from any thread.
public struct StoreBatchUpdateRequest: @unchecked Sendable {
    // @unchecked Sendable: immutable; holds frozen model descriptions and parsed expressions.
    let plan: BatchUpdatePlan
    let origin: TransactionOrigin

    init(plan: BatchUpdatePlan, origin: TransactionOrigin = TransactionOrigin()) {
        self.plan = plan
        self.origin = origin
    }

    /// The ``ManagedObjectContext/transactionAuthor`` of the context running the request (a
    /// store that keeps a persistent history records it with the transaction).
    public var transactionAuthor: String? { origin.author }

    /// The ``ManagedObjectContext/name`` of the context running the request.
    public var contextName: String? { origin.contextName }

    /// The rows to update, as a fetch request (entity, predicate, sub-entities; no order and
    /// no window): run it like ``IncrementalStore/fetchRows(_:options:)`` does.
    public var rows: StoreFetchRequest { StoreFetchRequest(plan: plan.rows) }

    /// The new values, by attribute name: for a constant, the value in its Swift type (nil for
    /// no value), as ``IncrementalStoreNode/value(forKey:)`` gives values; for an expression,
    /// see ``expressionsToUpdate``.
    public var constantsToUpdate: [String: Any?] {
        var constants: [String: Any?] = [:]
        for assignment in plan.assignments {
            guard case .constant(let stored, _) = assignment.value else { continue }
            constants[assignment.attribute.name] = AttributeCodec.decode(stored, for: assignment.attribute)
        }
        return constants
    }

    /// The expressions over each row that give the new values, by attribute name (`visits + 1`):
    /// the store computes them with the semantics of Strata's in-memory engine, in which an
    /// integer result assigned to a floating-point attribute becomes a double and a result
    /// outside a 16- or 32-bit integer attribute's range fails the update (134000-range
    /// validation errors, nothing updated).
    public var expressionsToUpdate: [String: ObjectExpression] {
        var expressions: [String: ObjectExpression] = [:]
        for assignment in plan.assignments {
            guard let source = assignment.sourceExpression else { continue }
            if case .constant = assignment.value { continue }
            expressions[assignment.attribute.name] = source
        }
        return expressions
    }

    /// Whether the result must name the updated objects (else only their number).
    public var returnsObjectIDs: Bool { plan.returnsObjectIDs }
}

/// What a store's batch update did (``IncrementalStore/executeBatchUpdate(_:)``).
///
/// A `Sendable` value: use it on any thread.
public struct StoreBatchUpdateResult: Sendable {
    /// How many rows were updated.
    public var count: Int
    /// The updated objects, when the request ``StoreBatchUpdateRequest/returnsObjectIDs``.
    public var updatedObjectIDs: [ManagedObjectID]

    /// A result of `count` rows, naming `updatedObjectIDs`.
    public init(count: Int, updatedObjectIDs: [ManagedObjectID] = []) {
        self.count = count
        self.updatedObjectIDs = updatedObjectIDs
    }
}
