import Foundation

/// A batch update (`BatchUpdateRequest`) resolved against its entity: which rows (``rows``) and
/// the new value of each attribute it sets, bound so that both engines compute the same value
/// (`BatchUpdateStatements` as SQL, ``newValue(_:for:)`` in memory). Built on the requesting
/// context's queue; immutable, so it may be handed to the store.
struct BatchUpdatePlan: @unchecked Sendable {
    // @unchecked Sendable: immutable after construction; holds frozen model descriptions and
    // bound expressions whose constants are Sendable values.

    /// One attribute the update sets.
    struct Assignment {
        let attribute: AttributeDescription
        /// The attribute's slot in the entity layout.
        let slot: Int
        /// The new value: a constant already in the attribute's stored form, or an expression
        /// over the row.
        let value: BoundExpression
        /// The expression the request gave, when it gave one that is not a constant (what a
        /// store of the public seam reads; see `StoreBatchUpdateRequest`).
        let sourceExpression: ObjectExpression?
        /// Whether the stored value must be checked after it is computed: an integer expression
        /// assigned to a 16- or 32-bit attribute may leave the attribute's range.
        var needsRangeCheck: Bool {
            if case .constant = value { return false }
            return attribute.type == .integer16 || attribute.type == .integer32
        }
    }

    /// The rows updated (entity, predicate, sub-entities; no order or window).
    let rows: FetchPlan
    /// The attributes set, in slot order.
    let assignments: [Assignment]
    /// Whether the store returns the updated rows' IDs (else only their number).
    let returnsObjectIDs: Bool

    /// Resolves an update of `entity`'s rows. Throws, naming the entity and key, for an unknown
    /// key, a key that is not a stored attribute, a value of the wrong type, nil for a required
    /// attribute, an integer constant out of its attribute's range, an expression whose values
    /// cannot be stored in the attribute, and malformed predicates or expressions.
    static func make(
        entity: EntityDescription, predicate: ObjectPredicate?, includesSubentities: Bool, propertiesToUpdate: [AnyHashable: Any], returnsObjectIDs: Bool
    ) throws -> BatchUpdatePlan {
        let rows = try FetchPlan.make(entity: entity, predicate: predicate, sortDescriptors: [], limit: 0, offset: 0, includesSubentities: includesSubentities, resultKind: .rows)
        func error(_ message: String, key: String?) -> StrataError {
            StrataError(code: StrataError.Code.managedObjectValidation, message: "Batch update of \(entity.name): \(message)", entityName: entity.name, key: key)
        }
        guard !propertiesToUpdate.isEmpty else { throw error("propertiesToUpdate is empty: there is nothing to update", key: nil) }
        var assignments: [Assignment] = []
        for (key, value) in propertiesToUpdate {
            let name: String
            if let string = key.base as? String {
                name = string
            } else if let property = key.base as? PropertyDescription {
                name = property.name
            } else {
                throw error("a key of propertiesToUpdate must be an attribute name or description, not \(type(of: key.base))", key: nil)
            }
            guard let slot = entity.layout.slot(forKey: name) else { throw error("the entity has no property named '\(name)'", key: name) }
            guard case .attribute(let index) = slot else {
                throw error("'\(name)' is not a stored attribute (a batch update sets stored attributes only)", key: name)
            }
            let attribute = entity.layout.storedAttributes[index]
            let bound = try bindValue(value, for: attribute, entity: entity, error: error)
            let source = (value as? ObjectExpression).flatMap { expression -> ObjectExpression? in
                if case .constant = expression.node { return nil }
                return expression
            }
            assignments.append(Assignment(attribute: attribute, slot: index, value: bound, sourceExpression: source))
        }
        assignments.sort { $0.slot < $1.slot }
        return BatchUpdatePlan(rows: rows, assignments: assignments, returnsObjectIDs: returnsObjectIDs)
    }

    /// The bound form of one new value: constants are converted (and checked) as a setter
    /// would; expressions are bound against the entity and their kind checked against the
    /// attribute's.
    private static func bindValue(
        _ value: Any, for attribute: AttributeDescription, entity: EntityDescription, error: (String, String?) -> StrataError
    ) throws -> BoundExpression {
        let kind = ValueKind(attribute.type)
        var expression = value as? ObjectExpression
        if let constantExpression = expression, case .constant = constantExpression.node {
            expression = nil
        }
        guard let expression else {
            let constant: Any? = (value as? ObjectExpression).map { $0.constantValue } ?? value
            return .constant(try storedConstant(constant, for: attribute, error: error), kind)
        }
        if let syntaxError = expression.syntaxError { throw syntaxError }
        var binder = PredicateBinder(entity: entity)
        let bound = try binder.scalarOrConstant(expression.node)
        let produced = bound.kind
        let compatible = produced == kind || produced == .null || (produced == .integer && kind == .double)
        guard compatible else {
            throw error(
                "'\(expression)' gives \(produced.name) values, which cannot be stored in '\(attribute.name)' (\(attribute.type.rawValue))", attribute.name)
        }
        if case .constant(var stored, _) = bound {
            // A constant after binding (`2 + 3`): checked now, like a plain constant.
            if stored.isNull && !attribute.isOptional {
                throw error("nil cannot be stored in '\(attribute.name)', a required attribute", attribute.name)
            }
            if case .integer(let int) = stored, kind == .double { stored = .real(Double(int)) }
            try checkRange(stored, for: attribute, error: error)
            return .constant(stored, kind)
        }
        return bound
    }

    /// A constant in `attribute`'s stored form, as a setter would store it, with the range and
    /// optionality checks a batch request keeps (batch updates and batch inserts share it;
    /// `request` names the request in messages).
    static func storedConstant(_ value: Any?, for attribute: AttributeDescription, request: String = "Batch update", error: (String, String?) -> StrataError) throws -> StoredValue {
        switch AttributeCodec.encode(value, for: attribute) {
        case .failure(let problem):
            throw StrataError(code: problem.code, message: problem.message, entityName: attribute.entity?.name, key: attribute.name)
        case .success(let stored):
            if stored.isNull && !attribute.isOptional {
                throw error("nil cannot be stored in '\(attribute.name)', a required attribute", attribute.name)
            }
            try checkRange(stored, for: attribute, request: request, error: error)
            return stored
        }
    }

    /// Throws when an integer does not fit `attribute`'s type (`request` names the batch
    /// request in the message).
    static func checkRange(_ stored: StoredValue, for attribute: AttributeDescription, request: String = "Batch update", error: (String, String?) -> StrataError) throws {
        guard case .integer(let int) = stored else { return }
        let range: ClosedRange<Int64>
        switch attribute.type {
        case .integer16: range = Int64(Int16.min)...Int64(Int16.max)
        case .integer32: range = Int64(Int32.min)...Int64(Int32.max)
        default: return
        }
        guard range.contains(int) else {
            throw StrataError(
                code: int > range.upperBound ? StrataError.Code.validationNumberTooLarge : StrataError.Code.validationNumberTooSmall,
                message: "\(request) of \(attribute.entity?.name ?? "?"): \(int) does not fit '\(attribute.name)' (\(attribute.type.rawValue))",
                entityName: attribute.entity?.name, key: attribute.name)
        }
    }

    /// The stored value `assignment` gives `row`, computed in memory with the semantics of the
    /// SQL the store runs (integers stored in floating-point attributes become doubles), range
    /// checked.
    func newValue(_ assignment: Assignment, for row: any EvaluationRow) throws -> StoredValue {
        var evaluator = RowEvaluator()
        guard case .value(var value) = try evaluator.operand(assignment.value, on: row) else {
            throw StrataError(
                code: StrataError.Code.managedObjectValidation, message: "Batch update of \(rows.entity.name): '\(assignment.attribute.name)' was given an object, not a value",
                entityName: rows.entity.name, key: assignment.attribute.name)
        }
        if case .integer(let int) = value, ValueKind(assignment.attribute.type) == .double { value = .real(Double(int)) }
        if value.isNull && !assignment.attribute.isOptional {
            throw StrataError(
                code: StrataError.Code.validationMissingMandatoryProperty,
                message: "Batch update of \(rows.entity.name): the new value of '\(assignment.attribute.name)', a required attribute, is nil for \(row.evaluationObjectID)",
                entityName: rows.entity.name, key: assignment.attribute.name, objectID: row.evaluationObjectID)
        }
        try Self.checkRange(value, for: assignment.attribute) { message, key in
            StrataError(code: StrataError.Code.managedObjectValidation, message: message, entityName: rows.entity.name, key: key)
        }
        return value
    }
}
