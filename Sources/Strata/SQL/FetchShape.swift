import Foundation

/// The shape of a fetch plan's SELECT: everything `FetchStatements` writes its text from — the
/// kind of statement, the entity and whether its sub-entities count, the kind of result, whether
/// there is a LIMIT / OFFSET, the predicate's tree and the sorts, with every constant reduced to
/// what the compiler decides by (its storage class: `NULL`, integer, real, text or blob; an
/// object constant's being nil, unsaved or saved; a list's length) — and none of the constant
/// values. Plans of one shape compile to one text, with their constants bound in the same
/// places (`FetchStatementCache` relies on it, and checks it when it first meets a shape).
///
/// Descriptions (entity, attributes, relationships) are in the key by identity: the cache keeps
/// only plans of its schema's model, which holds them for as long as the cache lives.
struct FetchShapeKey: Hashable, Sendable {
    fileprivate(set) var words: [Int] = []
    /// Variable names (of quantifiers, SUBQUERY and key paths from a variable), in walk order.
    fileprivate(set) var names: [String] = []
}

/// Which statement of `FetchStatements` a plan is compiled into.
enum FetchStatementKind: Int, Sendable {
    case rows = 1
    case objectIDs = 2
    case count = 3
}

/// Walks a fetch plan once, writing its ``FetchShapeKey`` and collecting its constants in walk
/// order (a saved object constant as its primary key). When `marking`, it also rebuilds the
/// plan with each constant replaced by a marker of the same class (``marker(for:index:)``), so
/// that compiling the rebuilt plan shows where each constant is bound.
struct FetchShapeWalker {
    private(set) var key = FetchShapeKey()
    /// The plan's non-`NULL` constants, in walk order.
    private(set) var constants: [StoredValue] = []
    /// False when the plan has an operand only dictionary fetches use (a result column).
    private(set) var isCacheable = true
    private let marking: Bool

    init(marking: Bool) {
        self.marking = marking
    }

    /// Walks `plan` as compiled into a `kind` statement; returns the plan with markers when
    /// `marking`, else `plan`.
    mutating func walk(_ plan: FetchPlan, kind: FetchStatementKind) -> FetchPlan {
        key.words.reserveCapacity(32)
        add(kind.rawValue, Self.identity(plan.entity), plan.includesSubentities ? 1 : 0)
        add(Self.code(plan.resultKind), plan.limit > 0 ? 1 : 0, plan.offset > 0 ? 1 : 0)
        var predicate = plan.predicate
        if let bound = plan.predicate {
            add(1)
            predicate = self.predicate(bound)
        } else {
            add(0)
        }
        add(plan.sorts.count)
        var sorts = plan.sorts
        for index in sorts.indices {
            add(sorts[index].ascending ? 1 : 0, Self.code(sorts[index].collation))
            sorts[index].expression = expression(sorts[index].expression)
        }
        guard marking else { return plan }
        return FetchPlan(
            entity: plan.entity, predicate: predicate, sorts: sorts, limit: plan.limit, offset: plan.offset,
            includesSubentities: plan.includesSubentities, resultKind: plan.resultKind, sourcePredicate: plan.sourcePredicate,
            sourceSortDescriptors: plan.sourceSortDescriptors)
    }

    /// A value of `value`'s storage class that no plan holds and no compiler writes, distinct
    /// for each `index` (`nil` for `NULL`, which has no binding).
    static func marker(for value: StoredValue, index: Int) -> StoredValue? {
        switch value {
        case .null: return nil
        case .integer: return .integer(Int64.min / 2 + Int64(index))
        case .real: return .real(Double(bitPattern: 0xFFE0_5157_0000_0000 | UInt64(index)))
        case .text: return .text("\u{1}strata.shape.\(index)")
        case .blob: return .blob(Data("\u{1}strata.shape.\(index)".utf8))
        }
    }

    // MARK: Predicates

    private mutating func predicate(_ predicate: BoundPredicate) -> BoundPredicate {
        switch predicate {
        case .constant(let value):
            add(1, value ? 1 : 0)
            return predicate
        case .and(let terms):
            add(2, terms.count)
            let walked = predicates(terms)
            return marking ? .and(walked) : predicate
        case .or(let terms):
            add(3, terms.count)
            let walked = predicates(terms)
            return marking ? .or(walked) : predicate
        case .not(let inner):
            add(4)
            let walked = self.predicate(inner)
            return marking ? .not(walked) : predicate
        case .comparison(var comparison):
            add(5, Self.code(comparison.op), Int(comparison.options.rawValue))
            add(Self.code(comparison.collation), comparison.numericOnly ? 1 : 0)
            comparison.lhs = expression(comparison.lhs)
            comparison.rhs = expression(comparison.rhs)
            return marking ? .comparison(comparison) : predicate
        case .quantified(let quantifier, let collection, let variable, let body):
            add(6, Self.code(quantifier))
            let walkedCollection = self.collection(collection)
            key.names.append(variable)
            let walkedBody = self.predicate(body)
            return marking ? .quantified(quantifier, walkedCollection, variable: variable, body: walkedBody) : predicate
        }
    }

    private mutating func predicates(_ terms: [BoundPredicate]) -> [BoundPredicate] {
        guard marking else {
            for term in terms { _ = predicate(term) }
            return terms
        }
        var walked: [BoundPredicate] = []
        walked.reserveCapacity(terms.count)
        for term in terms { walked.append(predicate(term)) }
        return walked
    }

    private mutating func collection(_ collection: BoundCollection) -> BoundCollection {
        path(collection.path)
        add(Self.identity(collection.relationship))
        guard let filter = collection.filter else {
            add(0)
            return collection
        }
        add(1)
        key.names.append(filter.variable)
        var walked = collection
        walked.filter = (filter.variable, predicate(filter.predicate))
        return walked
    }

    private mutating func path(_ path: BoundPath) {
        switch path.base {
        case .root: add(0)
        case .variable(let name):
            add(1)
            key.names.append(name)
        }
        add(Self.identity(path.baseEntity), path.steps.count)
        for step in path.steps { add(Self.identity(step)) }
    }

    // MARK: Operands

    private mutating func expression(_ expression: BoundExpression) -> BoundExpression {
        switch expression {
        case .constant(let value, let kind):
            add(10, Self.code(value), Self.code(kind))
            return constant(value).map { .constant($0, kind) } ?? expression
        case .list(let items):
            add(11, items.count)
            guard marking else {
                for item in items { _ = self.expression(item) }
                return expression
            }
            var walked: [BoundExpression] = []
            walked.reserveCapacity(items.count)
            for item in items { walked.append(self.expression(item)) }
            return .list(walked)
        case .attribute(let path, let attribute, let slot):
            add(12, Self.identity(attribute), slot)
            self.path(path)
            return expression
        case .object(let path):
            add(13)
            self.path(path)
            return expression
        case .objectConstant(let id):
            guard let id else {
                add(14, 0)
                return expression
            }
            guard let key = id.primaryKey else {
                add(14, 1)
                return expression
            }
            add(14, 2)
            guard case .integer(let marker)? = constant(.integer(key)) else { return expression }
            return .objectConstant(id.withPrimaryKey(marker))
        case .aggregate(let aggregate, let collection, let attribute):
            add(15, Self.code(aggregate), attribute.map(Self.identity) ?? 0)
            let walked = self.collection(collection)
            return marking ? .aggregate(aggregate, walked, attribute) : expression
        case .function(let function, let args):
            add(16, Int(SQLNames.code(of: function)), args.count)
            guard marking else {
                for arg in args { _ = self.expression(arg) }
                return expression
            }
            var walked: [BoundExpression] = []
            walked.reserveCapacity(args.count)
            for arg in args { walked.append(self.expression(arg)) }
            return .function(function, walked)
        case .conditional(let condition, let whenTrue, let whenFalse):
            add(17)
            let walkedCondition = predicate(condition)
            let walkedTrue = self.expression(whenTrue)
            let walkedFalse = self.expression(whenFalse)
            return marking ? .conditional(walkedCondition, walkedTrue, walkedFalse) : expression
        case .resultColumn:
            add(18)
            isCacheable = false
            return expression
        }
    }

    /// Records a constant; its marker when `marking` (else `nil`, as for `NULL`).
    private mutating func constant(_ value: StoredValue) -> StoredValue? {
        if value.isNull { return nil }
        constants.append(value)
        return marking ? Self.marker(for: value, index: constants.count - 1) : nil
    }

    // MARK: Words

    // Fixed arities, not a variadic (which would allocate an array per call).
    private mutating func add(_ a: Int) {
        key.words.append(a)
    }

    private mutating func add(_ a: Int, _ b: Int) {
        key.words.append(a)
        key.words.append(b)
    }

    private mutating func add(_ a: Int, _ b: Int, _ c: Int) {
        key.words.append(a)
        key.words.append(b)
        key.words.append(c)
    }

    private static func identity(_ object: AnyObject) -> Int {
        Int(bitPattern: ObjectIdentifier(object))
    }

    private static func code(_ value: StoredValue) -> Int {
        switch value {
        case .null: return 0
        case .integer: return 1
        case .real: return 2
        case .text: return 3
        case .blob: return 4
        }
    }

    private static func code(_ kind: FetchPlan.ResultKind) -> Int {
        switch kind {
        case .rows: return 1
        case .objectIDs: return 2
        case .count: return 3
        }
    }

    private static func code(_ collation: ValueCollation) -> Int {
        switch collation {
        case .binary: return 1
        case .decimal: return 2
        case .folded(let options): return 3 + (Int(options.rawValue) << 8)
        case .caseInsensitive: return 4
        case .localizedStandard: return 5
        }
    }

    private static func code(_ quantifier: BoundPredicate.Quantifier) -> Int {
        switch quantifier {
        case .any: return 1
        case .all: return 2
        case .none: return 3
        }
    }

    private static func code(_ aggregate: BoundAggregate) -> Int {
        switch aggregate {
        case .count: return 1
        case .sum: return 2
        case .avg: return 3
        case .min: return 4
        case .max: return 5
        }
    }

    private static func code(_ op: ComparisonOperator) -> Int {
        switch op {
        case .equal: return 1
        case .notEqual: return 2
        case .lessThan: return 3
        case .lessThanOrEqual: return 4
        case .greaterThan: return 5
        case .greaterThanOrEqual: return 6
        case .matches: return 7
        case .like: return 8
        case .beginsWith: return 9
        case .endsWith: return 10
        case .contains: return 11
        case .in: return 12
        case .between: return 13
        }
    }

    private static func code(_ kind: ValueKind) -> Int {
        switch kind {
        case .null: return 0
        case .integer: return 1
        case .double: return 2
        case .decimal: return 3
        case .boolean: return 4
        case .string: return 5
        case .date: return 6
        case .data: return 7
        case .uuid: return 8
        case .uri: return 9
        case .transformable: return 10
        case .object: return 11
        }
    }
}
