import Foundation
import Strata

extension PostgreSQLPredicateCompiler {
    /// A comparison of two resolved operands (no collection left), following Strata's binder:
    /// the constant goes to the right, `IN` takes a list (or a string, as a substring test),
    /// `BETWEEN` two bounds. Only a scalar compared with constants compiles; a comparison of
    /// two key paths, of two constants, or of functions stays in memory.
    mutating func compare(_ lhsIn: PostgreSQLOperand, _ opIn: ObjectPredicate.Operator, _ options: ObjectPredicate.Options, _ rhsIn: PostgreSQLOperand) -> PostgreSQLCondition? {
        var lhs = lhsIn
        var rhs = rhsIn
        var op = opIn
        if lhs.isConstant && !rhs.isConstant && ![.in, .between, .contains, .matches, .like, .beginsWith, .endsWith].contains(op) {
            swap(&lhs, &rhs)
            op = Self.mirrored(op)
        }
        // "{1, 2} CONTAINS x" is "x IN {1, 2}".
        if op == .contains, case .constantList = lhs {
            swap(&lhs, &rhs)
            op = .in
        }
        guard case .scalar(let left) = lhs else { return nil }
        switch op {
        case .in:
            switch rhs {
            case .constantList(let items):
                var parts: [PostgreSQLCondition] = []
                if case .object = left.kind { return objectMembership(left, items) }
                for item in items {
                    guard let part = compare(left, .equalTo, options, item) else { return nil }
                    parts.append(part)
                }
                return .any(parts)
            case .constant(.null):
                return .alwaysFalse
            case .constant(let single):
                // "x IN 'abc'": x is a substring of the constant.
                if case .attribute(.string) = left.kind, case .string(let text) = single {
                    guard Self.isBinary(options), !text.utf8.contains(0) else { return nil }
                    let placeholder = parameters.add(.text(text))
                    return PostgreSQLCondition(sql: "strpos(\(placeholder), \(left.sql)) > 0", canBeNull: left.canBeNull)
                }
                if case .object = left.kind { return objectMembership(left, [single]) }
                return compare(left, .equalTo, options, single)
            case .scalar(let right):
                // "name IN otherKey": a substring of another string.
                guard case .attribute(.string) = left.kind, case .attribute(.string) = right.kind else { return nil }
                return compareScalars(right, .contains, options, left)
            default:
                return nil
            }
        case .between:
            guard case .constantList(let bounds) = rhs, bounds.count == 2,
                let low = compare(left, .greaterThanOrEqualTo, options, bounds[0]),
                let high = compare(left, .lessThanOrEqualTo, options, bounds[1])
            else { return nil }
            return .all([low, high])
        default:
            switch rhs {
            case .constant(let value): return compare(left, op, options, value)
            case .scalar(let right): return compareScalars(left, op, options, right)
            default: return nil
            }
        }
    }

    /// `scalar op constant`.
    private mutating func compare(_ scalar: PostgreSQLScalar, _ op: ObjectPredicate.Operator, _ options: ObjectPredicate.Options, _ value: PredicateValue) -> PostgreSQLCondition? {
        switch scalar.kind {
        case .object:
            return compareObject(scalar, op, value)
        case .count:
            guard let constant = PostgreSQLConstant.coerce(value, to: .integer64) else { return nil }
            return compareValue(scalar, type: .integer64, op, options, constant)
        case .attribute(let type):
            guard let constant = PostgreSQLConstant.coerce(value, to: type) else { return nil }
            return compareValue(scalar, type: type, op, options, constant)
        }
    }

    /// An object (its key) compared with an object ID or nil. An ID of another store, a
    /// temporary ID or an ID of another entity tree names no row here: it is equal to nothing.
    private mutating func compareObject(_ scalar: PostgreSQLScalar, _ op: ObjectPredicate.Operator, _ value: PredicateValue) -> PostgreSQLCondition? {
        guard case .object(let entity) = scalar.kind, op == .equalTo || op == .notEqualTo else { return nil }
        let isEqual = op == .equalTo
        switch value {
        case .null:
            guard scalar.canBeNull else { return isEqual ? .alwaysFalse : .alwaysTrue }
            return PostgreSQLCondition(sql: "\(scalar.sql) IS \(isEqual ? "" : "NOT ")NULL", canBeNull: false)
        case .objectID(let id):
            guard let key = key(of: id, inTreeOf: entity) else { return isEqual ? .alwaysFalse : .alwaysTrue }
            let placeholder = parameters.add(.int64(key))
            if isEqual { return PostgreSQLCondition(sql: "\(scalar.sql) = \(placeholder)", canBeNull: scalar.canBeNull) }
            return PostgreSQLCondition(sql: "\(scalar.sql) IS DISTINCT FROM \(placeholder)", canBeNull: false)
        default:
            return nil
        }
    }

    /// `object IN {ids}`: nil items and IDs naming no row here match nothing.
    private mutating func objectMembership(_ scalar: PostgreSQLScalar, _ items: [PredicateValue]) -> PostgreSQLCondition? {
        guard case .object(let entity) = scalar.kind else { return nil }
        var keys: [Int64] = []
        for item in items {
            switch item {
            case .null: continue
            case .objectID(let id): if let key = key(of: id, inTreeOf: entity) { keys.append(key) }
            default: return nil
            }
        }
        guard !keys.isEmpty else { return .alwaysFalse }
        let placeholders = keys.map { parameters.add(.int64($0)) }
        return PostgreSQLCondition(sql: "\(scalar.sql) IN (\(placeholders.joined(separator: ", ")))", canBeNull: scalar.canBeNull)
    }

    /// The key of `id` when it names a row of `entity`'s inheritance tree in this store.
    private func key(of id: ManagedObjectID, inTreeOf entity: EntityDescription) -> Int64? {
        guard let key = objectKey(id), let table = schema.table(forEntityNamed: id.entityName), let own = schema.table(for: entity),
            table.rootEntityName == own.rootEntityName
        else { return nil }
        return key
    }

    /// Whether `options` leave strings compared by their bytes (`[n]` alone changes nothing).
    static func isBinary(_ options: ObjectPredicate.Options) -> Bool {
        options.intersection([.caseInsensitive, .diacriticInsensitive]).isEmpty
    }

    /// `a op b` as `b mirrored-op a`.
    static func mirrored(_ op: ObjectPredicate.Operator) -> ObjectPredicate.Operator {
        switch op {
        case .lessThan: return .greaterThan
        case .lessThanOrEqualTo: return .greaterThanOrEqualTo
        case .greaterThan: return .lessThan
        case .greaterThanOrEqualTo: return .lessThanOrEqualTo
        default: return op
        }
    }
}
