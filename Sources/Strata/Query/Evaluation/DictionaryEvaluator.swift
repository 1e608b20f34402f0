import Foundation

/// Computes a dictionary fetch in memory (in-memory stores, and contexts with unsaved changes)
/// with the semantics of the SQL `DictionarySQLCompiler` emits: groups by the group keys'
/// values (collation-aware, NULL a group of its own), aggregates with the same functions as the
/// registered SQL aggregates, filters with `havingPredicate`, removes duplicates, orders by the
/// plan's order (then object order) and applies offset and limit. Used on one queue at a time.
struct DictionaryEvaluator {
    typealias Value = RowEvaluator.Operand

    let plan: DictionaryPlan

    /// The result rows (every column, hidden ones included) for `rows`, the objects matching
    /// the plan's predicate in object (primary-key) order. O(n log n).
    func evaluate(_ rows: [any EvaluationRow]) throws -> [[Value]] {
        var evaluator = RowEvaluator()
        var results: [(values: [Value], keys: [Value], index: Int)] = []
        if plan.isAggregate {
            for (index, group) in try groups(of: rows, evaluator: &evaluator).enumerated() {
                var values: [Value] = []
                values.reserveCapacity(plan.columns.count)
                for column in plan.columns {
                    values.append(try value(of: column.expression, group: group, evaluator: &evaluator))
                }
                if let having = plan.having {
                    evaluator.resultRow = values
                    let matched = try evaluator.evaluate(having, on: group.rows.first ?? EmptyRow(entity: plan.rows.entity))
                    evaluator.resultRow = []
                    if !matched { continue }
                }
                let keys = try plan.orders.map { try value(of: $0.expression, group: group, evaluator: &evaluator) }
                results.append((values, keys, index))
            }
        } else {
            for (index, row) in rows.enumerated() {
                let group = Group(keys: [], rows: [row])
                let values = try plan.columns.map { try value(of: $0.expression, group: group, evaluator: &evaluator) }
                let keys = try plan.orders.map { try value(of: $0.expression, group: group, evaluator: &evaluator) }
                results.append((values, keys, index))
            }
        }
        let orders = plan.orders
        results.sort { lhs, rhs in
            for (index, order) in orders.enumerated() {
                let result = Self.compare(lhs.keys[index], rhs.keys[index], collation: order.collation)
                if result != 0 { return order.ascending ? result < 0 : result > 0 }
            }
            return lhs.index < rhs.index
        }
        var output: [[Value]] = results.map(\.values)
        if plan.distinct {
            let visible = plan.visibleCount
            let collations = plan.columns.prefix(visible).map { ResultExpression.collation(for: $0.kind) }
            var unique: [[Value]] = []
            for row in output {
                if let last = unique.last, (0..<visible).allSatisfy({ Self.compare(last[$0], row[$0], collation: collations[$0]) == 0 }) { continue }
                unique.append(row)
            }
            output = unique
        }
        if plan.offset > 0 { output = Array(output.dropFirst(plan.offset)) }
        if plan.limit > 0 { output = Array(output.prefix(plan.limit)) }
        return output
    }

    // MARK: Groups

    private struct Group {
        var keys: [Value]
        var rows: [any EvaluationRow]
    }

    /// The objects partitioned by their group-key values, in group-key order; one group of all
    /// objects (possibly none) without group keys.
    private func groups(of rows: [any EvaluationRow], evaluator: inout RowEvaluator) throws -> [Group] {
        guard !plan.groupKeys.isEmpty else { return [Group(keys: [], rows: rows)] }
        var keyed: [(keys: [Value], row: any EvaluationRow, index: Int)] = []
        for (index, row) in rows.enumerated() {
            keyed.append((try plan.groupKeys.map { try evaluator.operand($0.expression, on: row) }, row, index))
        }
        let keys = plan.groupKeys
        func order(_ a: [Value], _ b: [Value]) -> Int {
            for (index, key) in keys.enumerated() {
                let result = Self.compare(a[index], b[index], collation: key.collation)
                if result != 0 { return result }
            }
            return 0
        }
        keyed.sort { lhs, rhs in
            let result = order(lhs.keys, rhs.keys)
            return result != 0 ? result < 0 : lhs.index < rhs.index
        }
        var groups: [Group] = []
        for entry in keyed {
            if let last = groups.last, order(last.keys, entry.keys) == 0 {
                groups[groups.count - 1].rows.append(entry.row)
            } else {
                groups.append(Group(keys: entry.keys, rows: [entry.row]))
            }
        }
        return groups
    }

    // MARK: Values

    private func value(of expression: ResultExpression, group: Group, evaluator: inout RowEvaluator) throws -> Value {
        switch expression {
        case .row(let bound):
            guard let row = group.rows.first else { return Self.constant(bound) }
            return try evaluator.operand(bound, on: row)
        case .groupKey(let index, _):
            return index < group.keys.count ? group.keys[index] : .value(.null)
        case .aggregate(let aggregate, let argument):
            var values: [StoredValue] = []
            values.reserveCapacity(group.rows.count)
            for row in group.rows {
                switch try evaluator.operand(argument, on: row) {
                case .value(let value): values.append(value)
                case .object(let id): values.append(id == nil ? .null : .integer(1))
                case .list: values.append(.null)
                }
            }
            let kind = argument.kind
            return .value(AggregateFunctions.apply(aggregate, values, decimal: kind == .decimal, collation: ResultExpression.collation(for: kind)))
        case .function(let function, let args):
            var values: [StoredValue] = []
            for argument in args {
                if case .value(let value) = try self.value(of: argument, group: group, evaluator: &evaluator) {
                    values.append(value)
                } else {
                    values.append(.null)
                }
            }
            return .value(ScalarFunctions.apply(function, values))
        }
    }

    /// A constant column's value without an object to evaluate it on.
    private static func constant(_ expression: BoundExpression) -> Value {
        switch expression {
        case .constant(let value, _): return .value(value)
        case .objectConstant(let id): return .object(id)
        default: return .value(.null)
        }
    }

    /// The order of result values: stored values by SQLite's ordering under `collation`;
    /// objects by primary key (nil first, unsaved objects last).
    static func compare(_ a: Value, _ b: Value, collation: ValueCollation) -> Int {
        switch (a, b) {
        case (.value(let x), .value(let y)):
            return ValueOrdering.compare(x, y, collation: collation)
        case (.object(let x), .object(let y)):
            switch (x, y) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                if x == y { return 0 }
                return FetchPlan.idOrder(x, y) ? -1 : 1
            }
        case (.object(nil), _), (_, .object(nil)):
            return a.isNull && b.isNull ? 0 : (a.isNull ? -1 : 1)
        default:
            return 0
        }
    }
}

extension RowEvaluator.Operand {
    /// Whether the value is NULL or a nil object.
    var isNull: Bool {
        switch self {
        case .value(let value): return value.isNull
        case .object(let id): return id == nil
        case .list: return false
        }
    }
}

/// A row with no values, to evaluate a having predicate (which reads only result columns) for
/// the single group of an aggregate over no objects.
private struct EmptyRow: EvaluationRow {
    let entity: EntityDescription
    var evaluationObjectID: ManagedObjectID { ManagedObjectID(entity: entity, temporaryNumber: 0) }
    func evaluationAttribute(slot: Int) -> StoredValue { .null }
    func evaluationToOneID(slot: Int) -> ManagedObjectID? { nil }
    func evaluationToOneRow(slot: Int) -> (any EvaluationRow)? { nil }
    func evaluationToManyRows(slot: Int) -> [any EvaluationRow] { [] }
}
