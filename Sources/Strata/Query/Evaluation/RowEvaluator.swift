import Foundation
import StrataSQLite

/// Evaluates a bound predicate over rows in memory, with exactly the semantics of the SQL the
/// compiler emits for it (see `PredicateSQLCompiler`): two-valued logic (a comparison with nil
/// is false, never unknown), null-safe equality, NaN never ordered, SQLite's value ordering and
/// collations, and the same string functions.
struct RowEvaluator {
    private var variables: [String: any EvaluationRow] = [:]

    init() {}

    /// An operand's value for one row.
    enum Operand {
        case value(SQLiteValue)
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
        guard let owner = self.row(at: collection.path, from: row),
              case .toMany(let slot)? = owner.evaluationObjectID.entity.layout.slots[collection.relationship.name]
        else { return [] }
        let all = owner.evaluationToManyRows(slot: slot)
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
        for step in path.steps {
            guard let row = current, case .toOne(let slot)? = row.evaluationObjectID.entity.layout.slots[step.name] else { return nil }
            current = row.evaluationToOneRow(slot: slot)
        }
        return current
    }

    /// The ID of the object at the end of a path, without loading it when the last step is a to-one.
    private func objectID(at path: BoundPath, from root: any EvaluationRow) -> ManagedObjectID? {
        guard let last = path.steps.last else {
            switch path.base {
            case .root: return root.evaluationObjectID
            case .variable(let name): return variables[name]?.evaluationObjectID
            }
        }
        var prefix = path
        prefix.steps.removeLast()
        guard let owner = row(at: prefix, from: root), case .toOne(let slot)? = owner.evaluationObjectID.entity.layout.slots[last.name] else { return nil }
        return owner.evaluationToOneID(slot: slot)
    }

    // MARK: Operands

    mutating func operand(_ expression: BoundExpression, on row: any EvaluationRow) throws -> Operand {
        switch expression {
        case .constant(let value, _): return .value(value)
        case .list(let items): return .list(try items.map { try operand($0, on: row) })
        case .objectConstant(let id): return .object(id)
        case .object(let path): return .object(objectID(at: path, from: row))
        case .attribute(let path, let attribute):
            guard let target = self.row(at: path, from: row),
                  case .attribute(let slot)? = target.evaluationObjectID.entity.layout.slots[attribute.name]
            else { return .value(.null) }
            return .value(target.evaluationAttribute(slot: slot))
        case .aggregate(let aggregate, let collection, let attribute):
            let elements = try self.elements(of: collection, on: row)
            if aggregate == .count { return .value(.integer(Int64(elements.count))) }
            guard let attribute else { return .value(.null) }
            var values: [SQLiteValue] = []
            for element in elements {
                guard case .attribute(let slot)? = element.evaluationObjectID.entity.layout.slots[attribute.name] else { continue }
                let value = element.evaluationAttribute(slot: slot)
                if !value.isNull { values.append(value) }
            }
            return .value(try AggregateFunctions.apply(aggregate, values, collation: attribute.type == .decimal ? .decimal : .binary))
        case .function(let function, let args):
            let values = try args.map { argument -> SQLiteValue in
                guard case .value(let value) = try operand(argument, on: row) else { return .null }
                return value
            }
            return .value(ScalarFunctions.apply(function, values))
        case .conditional(let condition, let whenTrue, let whenFalse):
            return try evaluate(condition, on: row) ? operand(whenTrue, on: row) : operand(whenFalse, on: row)
        }
    }

    // MARK: Comparisons

    private mutating func evaluate(_ comparison: BoundComparison, on row: any EvaluationRow) throws -> Bool {
        let lhs = try operand(comparison.lhs, on: row)
        let rhs = try operand(comparison.rhs, on: row)
        return try Self.compare(lhs, comparison.op, rhs, comparison)
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

    static func compareValues(_ a: SQLiteValue, _ op: ComparisonOperator, _ b: SQLiteValue, _ comparison: BoundComparison) throws -> Bool {
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

extension SQLiteValue {
    /// Whether the value is an integer or a real.
    var isNumeric: Bool {
        switch self {
        case .integer, .real: return true
        default: return false
        }
    }
}
