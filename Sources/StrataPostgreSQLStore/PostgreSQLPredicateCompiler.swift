import Foundation
import Strata

/// Compiles the parts of a predicate tree that PostgreSQL can evaluate exactly as Strata's
/// in-memory engine does, and nothing else.
///
/// It reads the public tree (`PredicateNode`, `ExpressionNode`) and resolves it against the model
/// the way Strata's binder does (constants on the right, to-many key paths quantified, constants
/// coerced to the attribute's type). Every method returns nil for a construct it cannot compile
/// exactly, and the caller drops the whole part containing it: a dropped top-level conjunct
/// leaves a superset, which the store filters in memory; a dropped part under `NOT` or `OR`
/// drops the `NOT` or `OR` with it (the negation of a superset is not a superset).
///
/// Conditions are two-valued where it matters (see ``PostgreSQLCondition``). Values go in
/// ``parameters``; the SQL text holds only names, operators and the compiler's own literals.
/// Not thread-safe (a mutable value): make one per compilation.
struct PostgreSQLPredicateCompiler {
    /// The table and column names.
    let schema: PostgreSQLSchema
    /// The fetched row: the alias of the statement's table and the fetched entity.
    let root: PostgreSQLRowReference
    /// The key of an object ID in this store, or nil for an ID of another store or a temporary one.
    let objectKey: (ManagedObjectID) -> Int64?
    /// The parameters written so far.
    var parameters = PostgreSQLParameters()
    /// `SUBQUERY` variables in scope.
    var variables: [String: PostgreSQLRowReference] = [:]
    /// The prefix of the aliases of subqueries' rows.
    private let aliasPrefix: String
    /// The number of aliases made so far.
    private var aliasCount = 0

    /// A compiler for predicates on `entity`, fetched from its table under `tableAlias` (unquoted).
    /// Subqueries' rows get aliases starting with `aliasPrefix` (the table alias unless given:
    /// a second compiler writing into the same statement gives another).
    init(schema: PostgreSQLSchema, entity: EntityDescription, tableAlias: String, aliasPrefix: String? = nil, objectKey: @escaping (ManagedObjectID) -> Int64?) {
        self.schema = schema
        self.root = PostgreSQLRowReference(position: .alias(PostgreSQLText.quoted(tableAlias)), entity: entity)
        self.objectKey = objectKey
        self.aliasPrefix = aliasPrefix ?? tableAlias
    }

    /// A new quoted alias (`"t$1"`, `"t$2"`, … for table alias `t`): `$` keeps it apart from
    /// the caller's alias.
    mutating func newAlias() -> String {
        aliasCount += 1
        return PostgreSQLText.quoted("\(aliasPrefix)$\(aliasCount)")
    }

    /// `node` as an exact condition, or nil. On nil, ``parameters`` may hold values of the
    /// failed part: callers restore a copy (see ``PostgreSQLFetchCompiler``).
    mutating func compile(_ node: PredicateNode) -> PostgreSQLCondition? {
        switch node {
        case .constant(let value):
            return value ? .alwaysTrue : .alwaysFalse
        case .and(let terms):
            var parts: [PostgreSQLCondition] = []
            for term in terms {
                guard let part = compile(term) else { return nil }
                parts.append(part)
            }
            return .all(parts)
        case .or(let terms):
            var parts: [PostgreSQLCondition] = []
            for term in terms {
                guard let part = compile(term) else { return nil }
                parts.append(part)
            }
            return .any(parts)
        case .not(let inner):
            return compile(inner)?.negated
        case .comparison(let comparison):
            return compile(comparison)
        }
    }

    /// A comparison, resolved as Strata's binder resolves it.
    private mutating func compile(_ comparison: ComparisonNode) -> PostgreSQLCondition? {
        guard let lhs = resolve(comparison.lhs), let rhs = resolve(comparison.rhs) else { return nil }
        let options = comparison.comparisonOptions
        var op = comparison.comparisonOperator
        // A collection on the left: quantify over its elements.
        if case .collection(let collection, let rest) = lhs {
            if case .collection = rhs { return nil }
            let quantifier: ObjectPredicate.Modifier
            switch comparison.comparisonModifier {
            case .any, .direct: quantifier = .any
            case .all: quantifier = .all
            case .none: quantifier = .none
            }
            // Without a modifier, "collection CONTAINS x" is membership.
            if comparison.comparisonModifier == .direct && op == .contains { op = .equalTo }
            return quantify(collection, rest: rest, quantifier: quantifier) { compiler, element in
                compiler.compare(element, op, options, rhs)
            }
        }
        guard comparison.comparisonModifier == .direct else { return nil }
        // A collection on the right: "x IN collection" is membership.
        if case .collection(let collection, let rest) = rhs {
            guard op == .in || op == .equalTo else { return nil }
            return quantify(collection, rest: rest, quantifier: .any) { compiler, element in
                compiler.compare(lhs, .equalTo, options, element)
            }
        }
        return compare(lhs, op, options, rhs)
    }

    /// `ANY` / `ALL` / `NONE` over the elements of `collection` (each reached by `rest`, nested
    /// collections quantified with `ANY`), as `EXISTS` subqueries: `ANY` is `EXISTS (… body)`,
    /// `NONE` is `NOT EXISTS (… body)`, `ALL` is `NOT EXISTS (… NOT body)` (true for none).
    private mutating func quantify(
        _ collection: PostgreSQLCollection, rest: [String], quantifier: ObjectPredicate.Modifier,
        body: (inout PostgreSQLPredicateCompiler, PostgreSQLOperand) -> PostgreSQLCondition?
    ) -> PostgreSQLCondition? {
        guard let members = membersSQL(of: collection), let element = resolveKeyPath(from: members.element, rest[...]) else { return nil }
        let condition: PostgreSQLCondition?
        if case .collection(let nested, let nestedRest) = element {
            condition = quantify(nested, rest: nestedRest, quantifier: .any, body: body)
        } else {
            condition = body(&self, element)
        }
        guard let condition else { return nil }
        let select = "SELECT 1 \(members.from) WHERE \(members.condition) AND "
        switch quantifier {
        case .any, .direct: return PostgreSQLCondition(sql: "EXISTS (\(select)\(condition.twoValued))", canBeNull: false)
        case .none: return PostgreSQLCondition(sql: "NOT EXISTS (\(select)\(condition.twoValued))", canBeNull: false)
        case .all: return PostgreSQLCondition(sql: "NOT EXISTS (\(select)\(condition.negated.sql))", canBeNull: false)
        }
    }
}
