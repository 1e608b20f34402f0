import Foundation

/// Evaluates a bound predicate over rows in memory, with exactly the semantics of the SQL the
/// compiler emits for it (see `PredicateSQLCompiler`): two-valued logic (a comparison with nil
/// is false, never unknown), null-safe equality, NaN never ordered, SQLite's value ordering and
/// collations, and the same string functions.
struct RowEvaluator {
    private var variables: [String: any EvaluationRow] = [:]
    /// The values of a dictionary fetch's result row, for `havingPredicate`.
    var resultRow: [Operand] = []

    init() {}

    /// An operand's value for one row.
    enum Operand {
        case value(StoredValue)
        case object(ManagedObjectID?)
        case list([Operand])
    }

    mutating func evaluate(_ predicate: BoundPredicate, on row: any EvaluationRow) throws -> Bool {
        switch predicate {
        case .constant(let value): return value
        case .and(let terms):
            for term in terms where try !evaluate(term, on: row) { return false }
            return true
        case .or(let terms):
            for term in terms where try evaluate(term, on: row) { return true }
            return false
        case .not(let inner): return try !evaluate(inner, on: row)
        case .comparison(let comparison): return try evaluate(comparison, on: row)
        case .quantified(let quantifier, let collection, let variable, let body):
            let elements = try self.elements(of: collection, on: row)
            let saved = variables[variable]
            defer { variables[variable] = saved }
            for element in elements {
                variables[variable] = element
                let matched = try evaluate(body, on: row)
                switch quantifier {
                case .any where matched: return true
                case .all where !matched: return false
                case .none where matched: return false
                default: continue
                }
            }
            return quantifier != .any
        }
    }

    private mutating func elements(of collection: BoundCollection, on row: any EvaluationRow) throws -> [any EvaluationRow] {
        guard collection.slot >= 0, let owner = self.row(at: collection.path, from: row) else { return [] }
        let all = owner.evaluationToManyRows(slot: collection.slot)
        guard let filter = collection.filter else { return all }
        let saved = variables[filter.variable]
        defer { variables[filter.variable] = saved }
        var kept: [any EvaluationRow] = []
        for element in all {
            variables[filter.variable] = element
            if try evaluate(filter.predicate, on: row) { kept.append(element) }
        }
        return kept
    }

    /// The row at the end of a path (nil when a to-one on the way is nil).
    private func row(at path: BoundPath, from root: any EvaluationRow) -> (any EvaluationRow)? {
        var current: (any EvaluationRow)?
        switch path.base {
        case .root: current = root
        case .variable(let name): current = variables[name]
        }
        for slot in path.stepSlots {
            guard let row = current, slot >= 0 else { return nil }
            current = row.evaluationToOneRow(slot: slot)
        }
        return current
    }

    /// The ID of the object at the end of a path, without loading it when the last step is a to-one.
    private func objectID(at path: BoundPath, from root: any EvaluationRow) -> ManagedObjectID? {
        guard let lastSlot = path.stepSlots.last else {
            switch path.base {
            case .root: return root.evaluationObjectID
            case .variable(let name): return variables[name]?.evaluationObjectID
            }
        }
        var prefix = path
        prefix.steps.removeLast()
        prefix.stepSlots.removeLast()
        guard lastSlot >= 0, let owner = row(at: prefix, from: root) else { return nil }
        return owner.evaluationToOneID(slot: lastSlot)
    }

    // MARK: Operands

    mutating func operand(_ expression: BoundExpression, on row: any EvaluationRow) throws -> Operand {
        switch expression {
        case .constant(let value, _): return .value(value)
        case .list(let items): return .list(try items.map { try operand($0, on: row) })
        case .objectConstant(let id): return .object(id)
        case .object(let path): return .object(objectID(at: path, from: row))
        case .attribute(let path, _, let slot):
            guard slot >= 0, let target = self.row(at: path, from: row) else { return .value(.null) }
            return .value(target.evaluationAttribute(slot: slot))
        case .aggregate(let aggregate, let collection, let attribute):
            let elements = try self.elements(of: collection, on: row)
            if aggregate == .count { return .value(.integer(Int64(elements.count))) }
            guard let attribute else { return .value(.null) }
            let slot = PropertySlot.index(of: attribute, in: collection.destination)
            guard slot >= 0 else { return .value(.null) }
            var values: [StoredValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                let value = element.evaluationAttribute(slot: slot)
                if !value.isNull { values.append(value) }
            }
            let isDecimal = attribute.type == .decimal
            return .value(AggregateFunctions.apply(aggregate, values, decimal: isDecimal, collation: isDecimal ? .decimal : .binary))
        case .function(let function, let args):
            let values = try args.map { argument -> StoredValue in
                guard case .value(let value) = try operand(argument, on: row) else { return .null }
                return value
            }
            return .value(ScalarFunctions.apply(function, values))
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try evaluate(condition, on: row) ? operand(whenTrue, on: row) : operand(whenFalse, on: row)
        case .resultColumn(let index, _):
            return index < resultRow.count ? resultRow[index] : .value(.null)
        }
    }

    // MARK: Comparisons

    private mutating func evaluate(_ comparison: BoundComparison, on row: any EvaluationRow) throws -> Bool {
        // The common shape "attribute op constant", without building operands.
        if case .attribute(let path, _, let slot) = comparison.lhs, slot >= 0, case .constant(let constant, _) = comparison.rhs {
            let value: StoredValue
            if path.stepSlots.isEmpty, case .root = path.base {
                value = row.evaluationAttribute(slot: slot)
            } else {
                value = self.row(at: path, from: row)?.evaluationAttribute(slot: slot) ?? .null
            }
            return try Self.compareValues(value, comparison.op, constant, comparison)
        }
        if case .list(let items) = comparison.rhs, comparison.op == .in || comparison.op == .between {
            // Constant lists (the usual case) are compared in place, without building operands.
            if case .value(let value) = try operand(comparison.lhs, on: row), let result = try Self.compare(value, comparison, constants: items) {
                return result
            }
        }
        let lhs = try operand(comparison.lhs, on: row)
        let rhs = try operand(comparison.rhs, on: row)
        return try Self.compare(lhs, comparison.op, rhs, comparison)
    }

    /// `value IN (constants)` / `value BETWEEN {low, high}`; nil when an item is not a plain constant.
    private static func compare(_ value: StoredValue, _ comparison: BoundComparison, constants items: [BoundExpression]) throws -> Bool? {
        if comparison.op == .between {
            guard items.count == 2, case .constant(let low, _) = items[0], case .constant(let high, _) = items[1] else { return nil }
            return try compareValues(value, .greaterThanOrEqual, low, comparison) && compareValues(value, .lessThanOrEqual, high, comparison)
        }
        for item in items {
            guard case .constant(let constant, _) = item else { return nil }
            if ValueOrdering.compare(value, constant, collation: comparison.collation) == 0 { return true }
        }
        return false
    }

    static func compare(_ lhs: Operand, _ op: ComparisonOperator, _ rhs: Operand, _ comparison: BoundComparison) throws -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            default: return false
            }
        case (.object(let a), .list(let items)) where op == .in:
            return items.contains { if case .object(let b) = $0 { return a == b } else { return false } }
        case (.object(let a), .value(.null)):
            return op == .equal ? a == nil : (op == .notEqual ? a != nil : false)
        case (.value(let a), .value(let b)):
            return try compareValues(a, op, b, comparison)
        case (.value(let a), .list(let items)):
            switch op {
            case .in:
                return items.contains { item in
                    guard case .value(let b) = item else { return false }
                    return ValueOrdering.compare(a, b, collation: comparison.collation) == 0
                }
            case .between:
                guard items.count == 2, case .value(let low) = items[0], case .value(let high) = items[1] else { return false }
                return try compareValues(a, .greaterThanOrEqual, low, comparison) && compareValues(a, .lessThanOrEqual, high, comparison)
            default:
                return false
            }
        default:
            return false
        }
    }

    static func compareValues(_ a: StoredValue, _ op: ComparisonOperator, _ b: StoredValue, _ comparison: BoundComparison) throws -> Bool {
        switch op {
        case .equal: return ValueOrdering.compare(a, b, collation: comparison.collation) == 0
        case .notEqual: return ValueOrdering.compare(a, b, collation: comparison.collation) != 0
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if a.isNull || b.isNull { return false }
            if comparison.numericOnly && (!a.isNumeric || !b.isNumeric) { return false }
            let order = ValueOrdering.compare(a, b, collation: comparison.collation)
            switch op {
            case .lessThan: return order < 0
            case .lessThanOrEqual: return order <= 0
            case .greaterThan: return order > 0
            default: return order >= 0
            }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .text(let text) = a, case .text(let pattern) = b else { return false }
            return try ScalarFunctions.match(op, text, pattern, comparison.options)
        case .in, .between:
            return false
        }
    }
}

extension StoredValue {
    /// Whether the value is an integer or a real.
    var isNumeric: Bool {
        switch self {
        case .integer, .real: return true
        default: return false
        }
    }
}
