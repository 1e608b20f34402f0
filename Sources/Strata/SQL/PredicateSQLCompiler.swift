import Foundation

/// Compiles bound predicates, expressions and sorts into SQL for the SQLite store.
///
/// The SQL has exactly the semantics of `RowEvaluator`: every comparison is two-valued (a
/// comparison with NULL is false, never unknown, so `NOT` behaves as in memory), equality is
/// null-safe (`IS` / `IS NOT`), NaN is never ordered, and text comparisons use the collations and
/// functions Strata registers, which run the evaluator's own Swift code. To-one key paths become
/// `LEFT JOIN`s, `ANY`/`ALL`/`NONE` become `EXISTS` sub-selects, aggregates become scalar
/// sub-selects. Every value is a bound parameter.
final class SQLQueryScope {
    let schema: SQLiteSchema
    let alias: String
    let entity: EntityDescription
    private(set) var joins: [String] = []
    private var joinAliases: [String: String] = [:]
    /// Variables bound in this scope: alias and entity.
    var variables: [String: (alias: String, entity: EntityDescription)] = [:]
    /// For a dictionary fetch's HAVING clause: the SQL of each result column.
    var resultColumns: [SQLFragment] = []
    let parent: SQLQueryScope?
    private let counter: AliasCounter

    final class AliasCounter {
        var next = 0
        func make(_ prefix: String) -> String {
            next += 1
            return "\(prefix)\(next)"
        }
    }

    init(schema: SQLiteSchema, entity: EntityDescription) {
        self.schema = schema
        self.entity = entity
        self.alias = "t0"
        self.parent = nil
        self.counter = AliasCounter()
    }

    private init(parent: SQLQueryScope, alias: String, entity: EntityDescription) {
        self.schema = parent.schema
        self.entity = entity
        self.alias = alias
        self.parent = parent
        self.counter = parent.counter
    }

    func child(entity: EntityDescription) -> SQLQueryScope {
        SQLQueryScope(parent: self, alias: counter.make("q"), entity: entity)
    }

    func newAlias(_ prefix: String) -> String { counter.make(prefix) }

    /// The scope that owns a path's base, and the alias of the base.
    func base(of path: BoundPath) throws -> (scope: SQLQueryScope, alias: String) {
        switch path.base {
        case .root:
            var scope = self
            while let parent = scope.parent { scope = parent }
            return (scope, scope.alias)
        case .variable(let name):
            var scope: SQLQueryScope? = self
            while let current = scope {
                if let variable = current.variables[name] { return (current, variable.alias) }
                scope = current.parent
            }
            throw StrataError(code: StrataError.Code.coreData, message: "Variable $\(name) is not bound here")
        }
    }

    /// Adds (once) the LEFT JOIN for a to-one step and returns the destination alias.
    func join(from alias: String, fromEntity: EntityDescription, via relationship: RelationshipDescription) throws -> String {
        let key = alias + "." + relationship.name
        if let existing = joinAliases[key] { return existing }
        guard let destination = relationship.destinationEntity, let table = schema.table(for: destination),
            let fk = schema.foreignKeyColumn(relationship, of: fromEntity)
        else {
            throw StrataError(
                code: StrataError.Code.coreData, message: "Relationship '\(fromEntity.name).\(relationship.name)' has no column in the store", entityName: fromEntity.name, key: relationship.name)
        }
        let target = counter.make("j")
        joins.append("LEFT JOIN \(SQLFragment.identifier(table.name)) \(target) ON \(target).Z_PK = \(alias).\(SQLFragment.identifier(fk.key))")
        joinAliases[key] = target
        return target
    }
}

struct PredicateSQLCompiler {
    let scope: SQLQueryScope

    // MARK: Paths

    /// The alias of the object at the end of `path` (joining every step).
    private func alias(of path: BoundPath) throws -> (alias: String, entity: EntityDescription) {
        let (owner, baseAlias) = try scope.base(of: path)
        var alias = baseAlias
        var entity = path.baseEntity
        for step in path.steps {
            alias = try owner.join(from: alias, fromEntity: entity, via: step)
            entity = step.destinationEntity ?? entity
        }
        return (alias, entity)
    }

    /// The primary key and entity code of the object at the end of `path` (joining every
    /// step), for results that return the object's ID.
    func objectColumns(of path: BoundPath) throws -> (key: SQLFragment, entity: SQLFragment) {
        let alias = try alias(of: path).alias
        return (SQLFragment(alias + ".Z_PK"), SQLFragment(alias + ".Z_ENT"))
    }

    /// The primary key of the object at the end of `path`, read from the last foreign key
    /// without joining the last step.
    private func objectKey(of path: BoundPath) throws -> String {
        guard let last = path.steps.last else {
            return try alias(of: path).alias + ".Z_PK"
        }
        var prefix = path
        prefix.steps.removeLast()
        let (ownerAlias, ownerEntity) = try alias(of: prefix)
        guard let fk = scope.schema.foreignKeyColumn(last, of: ownerEntity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Relationship '\(ownerEntity.name).\(last.name)' has no column in the store", entityName: ownerEntity.name, key: last.name)
        }
        return ownerAlias + "." + SQLFragment.identifier(fk.key)
    }

    // MARK: Predicates

    func compile(_ predicate: BoundPredicate) throws -> SQLFragment {
        switch predicate {
        case .constant(let value): return SQLFragment(value ? "1" : "0")
        case .and(let terms):
            if terms.isEmpty { return SQLFragment("1") }
            return "(" + SQLFragment.join(try terms.map(compile), separator: " AND ") + ")"
        case .or(let terms):
            if terms.isEmpty { return SQLFragment("0") }
            return "(" + SQLFragment.join(try terms.map(compile), separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + (try compile(inner)) + ")"
        case .comparison(let comparison):
            return try compile(comparison)
        case .quantified(let quantifier, let collection, let variable, let body):
            let (from, element) = try collectionSource(collection)
            element.variables[variable] = (element.alias, collection.destination)
            let bodySQL = try PredicateSQLCompiler(scope: element).compile(body)
            var conditions = [from.condition]
            if let filter = try filterCondition(collection, in: element) { conditions.append(filter) }
            switch quantifier {
            case .any:
                conditions.append(bodySQL)
                return "EXISTS (" + select("1", from: from, scope: element, where: conditions) + ")"
            case .all:
                conditions.append("(NOT " + bodySQL + ")")
                return "(NOT EXISTS (" + select("1", from: from, scope: element, where: conditions) + "))"
            case .none:
                conditions.append(bodySQL)
                return "(NOT EXISTS (" + select("1", from: from, scope: element, where: conditions) + "))"
            }
        }
    }

    private struct CollectionSource {
        var from: String
        var condition: SQLFragment
    }

    /// The FROM clause and the link condition of a to-many collection's elements.
    private func collectionSource(_ collection: BoundCollection) throws -> (CollectionSource, SQLQueryScope) {
        let ownerKey = try objectKey(of: collection.path)
        let element = scope.child(entity: collection.destination)
        guard let storage = scope.schema.storage(of: collection.relationship), let table = scope.schema.table(for: collection.destination) else {
            throw StrataError(
                code: StrataError.Code.coreData, message: "Relationship '\(collection.relationship.entity?.name ?? "?").\(collection.relationship.name)' has no storage in the store",
                key: collection.relationship.name)
        }
        switch storage {
        case .foreignKey(_, let column, _, _):
            return (
                CollectionSource(
                    from: SQLFragment.identifier(table.name) + " " + element.alias,
                    condition: SQLFragment(element.alias + "." + SQLFragment.identifier(column) + " = " + ownerKey)), element
            )
        case .joinTable(let join, let isSourceSide):
            let link = element.newAlias("l")
            let mine = isSourceSide ? "Z_SOURCE" : "Z_TARGET"
            let other = isSourceSide ? "Z_TARGET" : "Z_SOURCE"
            return (
                CollectionSource(
                    from: SQLFragment.identifier(join.name) + " " + link + " JOIN " + SQLFragment.identifier(table.name) + " " + element.alias + " ON " + element.alias + ".Z_PK = " + link + "."
                        + other,
                    condition: SQLFragment(link + "." + mine + " = " + ownerKey)), element
            )
        }
    }

    private func filterCondition(_ collection: BoundCollection, in element: SQLQueryScope) throws -> SQLFragment? {
        guard let filter = collection.filter else { return nil }
        element.variables[filter.variable] = (element.alias, collection.destination)
        return try PredicateSQLCompiler(scope: element).compile(filter.predicate)
    }

    private func select(_ what: String, from: CollectionSource, scope element: SQLQueryScope, where conditions: [SQLFragment]) -> SQLFragment {
        var sql = SQLFragment("SELECT " + what + " FROM " + from.from)
        for join in element.joins { sql.text += " " + join }
        sql = sql + " WHERE " + SQLFragment.join(conditions, separator: " AND ")
        return sql
    }

    // MARK: Comparisons

    private func compile(_ comparison: BoundComparison) throws -> SQLFragment {
        let collate = SQLNames.collate(comparison.collation)
        let lhs = try operand(comparison.lhs)
        if let external = try externalDataComparison(comparison, lhs: lhs) { return external }
        switch comparison.op {
        case .equal, .notEqual:
            let negate = comparison.op == .notEqual
            if comparison.rhs.isNullConstant || comparison.rhs.isNilObject {
                return "(" + lhs + (negate ? " IS NOT NULL)" : " IS NULL)")
            }
            let rhs = try operand(comparison.rhs)
            return "(" + lhs + collate + (negate ? " IS NOT " : " IS ") + rhs + ")"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            if comparison.rhs.isNullConstant { return SQLFragment("0") }
            let rhs = try operand(comparison.rhs)
            var guards = [lhs + " IS NOT NULL"]
            if !comparison.rhs.isConstant { guards.append(rhs + " IS NOT NULL") }
            if comparison.numericOnly {
                if case .constant(let value, _) = comparison.rhs, !value.isNumeric { return SQLFragment("0") }
                guards.append("typeof(" + lhs + ") IN ('integer', 'real')")
                if !comparison.rhs.isConstant { guards.append("typeof(" + rhs + ") IN ('integer', 'real')") }
            }
            let symbol = comparison.op.rawValue
            return "(" + SQLFragment.join(guards, separator: " AND ") + " AND " + lhs + collate + " " + symbol + " " + rhs + ")"
        case .between:
            guard case .list(let bounds) = comparison.rhs, bounds.count == 2 else { return SQLFragment("0") }
            if bounds.contains(where: \.isNullConstant) { return SQLFragment("0") }
            var guards = [lhs + " IS NOT NULL"]
            if comparison.numericOnly {
                for bound in bounds {
                    if case .constant(let value, _) = bound, !value.isNumeric { return SQLFragment("0") }
                }
                guards.append("typeof(" + lhs + ") IN ('integer', 'real')")
            }
            let low = try operand(bounds[0])
            let high = try operand(bounds[1])
            return "(" + SQLFragment.join(guards, separator: " AND ") + " AND " + lhs + collate + " >= " + low + " AND " + lhs + collate + " <= " + high + ")"
        case .in:
            guard case .list(let items) = comparison.rhs else { return SQLFragment("0") }
            var values: [SQLFragment] = []
            var includesNull = false
            for item in items {
                switch item {
                case .constant(.null, _), .objectConstant(nil): includesNull = true
                case .objectConstant(let id?):
                    // Unsaved objects have no row: they can never match a stored row.
                    if let pk = id.primaryKey { values.append(.value(.integer(pk))) }
                default: values.append(try operand(item))
                }
            }
            var parts: [SQLFragment] = []
            if !values.isEmpty {
                parts.append("(" + lhs + " IS NOT NULL AND " + lhs + collate + " IN (" + SQLFragment.join(values, separator: ", ") + "))")
            }
            if includesNull { parts.append("(" + lhs + " IS NULL)") }
            if parts.isEmpty { return SQLFragment("0") }
            return "(" + SQLFragment.join(parts, separator: " OR ") + ")"
        case .beginsWith, .endsWith, .contains, .like, .matches:
            let rhs = try operand(comparison.rhs)
            let code = SQLNames.stringOperatorCodes[comparison.op] ?? 0
            let flags = Int64(comparison.options.rawValue)
            return SQLFragment(SQLNames.matchFunction + "(" + String(code) + ", ") + lhs + ", " + rhs + SQLFragment(", " + String(flags) + ")")
        }
    }

    /// A comparison with an attribute whose values may be kept in external binary data files
    /// (`SQL/ExternalBinaryStatements.swift`): a value of one is in its column inline or as a
    /// reference, so `==` / `!=` with a constant test both forms (a value's reference is the same
    /// whatever its size and the threshold it was written under); other comparisons of a
    /// flagged attribute cannot run on the column and throw. Nil when the comparison is
    /// ordinary.
    private func externalDataComparison(_ comparison: BoundComparison, lhs: SQLFragment) throws -> SQLFragment? {
        guard case .attribute(_, let attribute, _) = comparison.lhs, ExternalBinaryReference.mayHoldReferences(attribute) else {
            if case .attribute(_, let attribute, _) = comparison.rhs, ExternalBinaryReference.storesExternally(attribute), !comparison.lhs.isNullConstant {
                throw Self.externalComparisonError(attribute, comparison.op)
            }
            return nil
        }
        if comparison.rhs.isNullConstant || comparison.rhs.isNilObject { return nil }
        switch (comparison.op, comparison.rhs) {
        case (.equal, .constant(.blob(let data), _)):
            let reference = StoredValue.text(ExternalBinaryReference.text(for: data))
            return "(" + lhs + " IS " + .value(.blob(data)) + " OR " + lhs + " IS " + .value(reference) + ")"
        case (.notEqual, .constant(.blob(let data), _)):
            let reference = StoredValue.text(ExternalBinaryReference.text(for: data))
            return "(" + lhs + " IS NOT " + .value(.blob(data)) + " AND " + lhs + " IS NOT " + .value(reference) + ")"
        default:
            guard ExternalBinaryReference.storesExternally(attribute) else { return nil }
            throw Self.externalComparisonError(attribute, comparison.op)
        }
    }

    private static func externalComparisonError(_ attribute: AttributeDescription, _ op: ComparisonOperator) -> StrataError {
        let entity = attribute.entity?.name
        return StrataError(
            code: StrataError.Code.coreData,
            message:
                "'\(entity ?? "?").\(attribute.name)' allows external binary data storage: a SQLite fetch can compare it only with nil or, with == and !=, with a data constant (\(op.rawValue) was asked); its values may be kept in files beside the store",
            entityName: entity, key: attribute.name)
    }

    // MARK: Operands

    func operand(_ expression: BoundExpression) throws -> SQLFragment {
        switch expression {
        case .constant(let value, _): return .value(value)
        case .list(let items): return "(" + SQLFragment.join(try items.map(operand), separator: ", ") + ")"
        case .objectConstant(let id):
            guard let id else { return SQLFragment("NULL") }
            // An unsaved object's key matches no row.
            return .value(.integer(id.primaryKey ?? -1))
        case .object(let path):
            return SQLFragment(try objectKey(of: path))
        case .attribute(let path, let attribute, _):
            let (alias, entity) = try alias(of: path)
            guard let column = scope.schema.attributeColumn(attribute, of: entity) ?? scope.schema.attributeColumn(attribute, of: attribute.entity ?? entity) else {
                throw StrataError(code: StrataError.Code.coreData, message: "Attribute '\(entity.name).\(attribute.name)' has no column in the store", entityName: entity.name, key: attribute.name)
            }
            return SQLFragment(alias + "." + SQLFragment.identifier(column))
        case .aggregate(let aggregate, let collection, let attribute):
            let (from, element) = try collectionSource(collection)
            var conditions = [from.condition]
            if let filter = try filterCondition(collection, in: element) { conditions.append(filter) }
            let what: String
            if aggregate == .count {
                what = "COUNT(*)"
            } else {
                guard let attribute, let column = scope.schema.attributeColumn(attribute, of: collection.destination) else {
                    throw StrataError(code: StrataError.Code.coreData, message: "Aggregate needs a stored attribute")
                }
                let value = element.alias + "." + SQLFragment.identifier(column)
                let isDecimal = attribute.type == .decimal
                switch aggregate {
                case .sum: what = (isDecimal ? SQLNames.decimalSumAggregate : SQLNames.sumAggregate) + "(" + value + ")"
                case .avg: what = (isDecimal ? SQLNames.decimalAverageAggregate : SQLNames.averageAggregate) + "(" + value + ")"
                case .min: what = "MIN(" + value + ")"
                case .max: what = "MAX(" + value + ")"
                case .count: what = "COUNT(*)"
                }
            }
            return "(" + select(what, from: from, scope: element, where: conditions) + ")"
        case .function(let function, let args):
            let compiled = try args.map(operand)
            let call = SQLFragment(SQLNames.scalarFunction + "(" + String(SQLNames.code(of: function))) + compiled.reduce(SQLFragment("")) { $0 + ", " + $1 } + ")"
            // + - * on integers and NULLs follow SQLite's own rules in the registered function
            // too (integer overflow gives a real; NULL gives NULL): when both operands are
            // integer columns or constants, SQLite computes them itself, without a call per
            // row. Reals keep the function: it keeps a NaN result (infinity minus infinity),
            // which SQLite's own arithmetic turns into NULL.
            guard let native = Self.nativeOperator(function), args.count == 2, compiled.count == 2 else { return call }
            if args.allSatisfy(Self.isIntegerOperand) { return "(" + compiled[0] + " " + native + " " + compiled[1] + ")" }
            // A double column with a finite constant (`score + 1`, `price * 1.1`): while the
            // column holds a real, SQLite's arithmetic cannot give NaN (nor differ from the
            // function's), so it computes it; NULL and a stored NaN (the text 'NaN') still go
            // through the function.
            if let column = Self.realColumnWithFiniteConstant(function, args) {
                let typed = "typeof(" + compiled[column] + ") = 'real'"
                return "(CASE WHEN " + typed + " THEN " + compiled[0] + " " + native + " " + compiled[1] + " ELSE " + call + " END)"
            }
            return call
        case .conditional(let condition, let whenTrue, let whenFalse):
            return "(CASE WHEN " + (try compile(condition)) + " THEN " + (try operand(whenTrue)) + " ELSE " + (try operand(whenFalse)) + " END)"
        case .resultColumn(let index, _):
            var root = scope
            while let parent = root.parent { root = parent }
            guard index < root.resultColumns.count else {
                throw StrataError(code: StrataError.Code.coreData, message: "Result column \(index) is not defined here")
            }
            return root.resultColumns[index]
        }
    }

    /// The SQL operator that computes `function` exactly as the registered function does for
    /// non-text operands.
    private static func nativeOperator(_ function: BoundFunction) -> String? {
        switch function {
        case .add: return "+"
        case .subtract: return "-"
        case .multiply: return "*"
        default: return nil
        }
    }

    /// The index of the double column among `args` when the other is a finite constant that
    /// cannot make `function` give NaN from a real: `+` and `-` with any finite constant, `*`
    /// with a non-zero one (infinity times zero is NaN).
    private static func realColumnWithFiniteConstant(_ function: BoundFunction, _ args: [BoundExpression]) -> Int? {
        func isDoubleColumn(_ expression: BoundExpression) -> Bool {
            if case .attribute(_, let attribute, _) = expression { return attribute.type == .double }
            return false
        }
        func constant(_ expression: BoundExpression) -> Double? {
            switch expression {
            case .constant(.integer(let value), _): return Double(value)
            case .constant(.real(let value), _): return value
            default: return nil
            }
        }
        guard args.count == 2 else { return nil }
        let column = isDoubleColumn(args[0]) ? 0 : isDoubleColumn(args[1]) ? 1 : nil
        guard let column, let value = constant(args[1 - column]), value.isFinite else { return nil }
        if case .multiply = function, value == 0 { return nil }
        return column
    }

    /// Whether `expression` is an integer column (integer or boolean attribute: such columns
    /// hold only integers and NULL) or an integer constant.
    private static func isIntegerOperand(_ expression: BoundExpression) -> Bool {
        switch expression {
        case .constant(.integer, _), .constant(.null, _): return true
        case .attribute(_, let attribute, _):
            switch attribute.type {
            case .integer16, .integer32, .integer64, .boolean: return true
            default: return false
            }
        default: return false
        }
    }

    /// `ORDER BY` terms for sorts, ending with the primary key so the order is total.
    func orderBy(_ sorts: [BoundSort]) throws -> SQLFragment {
        var terms: [SQLFragment] = []
        for sort in sorts {
            let value = try operand(sort.expression)
            terms.append(value + SQLNames.collate(sort.collation) + (sort.ascending ? " ASC" : " DESC"))
        }
        terms.append(SQLFragment(scope.alias + ".Z_PK ASC"))
        return SQLFragment.join(terms, separator: ", ")
    }
}

extension BoundExpression {
    var isConstant: Bool {
        switch self {
        case .constant, .objectConstant, .list: return true
        default: return false
        }
    }

    var isNilObject: Bool {
        if case .objectConstant(nil) = self { return true }
        return false
    }
}
