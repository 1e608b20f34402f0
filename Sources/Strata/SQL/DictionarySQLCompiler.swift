import Foundation

/// Compiles a dictionary fetch to one `SELECT` for the SQLite store:
///
/// ```sql
/// SELECT [DISTINCT] <visible columns> FROM <table> t0 <joins>
/// WHERE <entity codes> AND <predicate>
/// GROUP BY <group keys> HAVING <havingPredicate> ORDER BY <order> LIMIT ? OFFSET ?
/// ```
///
/// Aggregates are SQL's `COUNT`, `MIN` and `MAX` and Strata's registered `strata_sum` /
/// `strata_avg` (`strata_dsum` / `strata_davg` for decimals, exact), which run the in-memory
/// evaluator's `NumericAccumulator`. Decimal keys group, sort and compare with
/// `COLLATE STRATA_DECIMAL`. Hidden columns (used only by HAVING and ORDER BY) are not selected,
/// so they never affect DISTINCT. Every value is a bound parameter.
struct DictionarySQLCompiler {
    /// How to read one visible column from the statement's result columns.
    enum ColumnRead {
        case value(Int32)
        /// A to-one object: its primary key and its entity code.
        case object(key: Int32, entity: Int32)
    }

    let schema: SQLiteSchema
    let plan: DictionaryPlan

    func compile() throws -> (sql: SQLFragment, reads: [ColumnRead]) {
        guard let table = schema.table(for: plan.rows.entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(plan.rows.entity.name)' is not stored in this store", entityName: plan.rows.entity.name)
        }
        let scope = SQLQueryScope(schema: schema, entity: plan.rows.entity)
        let compiler = PredicateSQLCompiler(scope: scope)
        // Every expression is compiled before FROM is written: compiling adds the joins.
        var conditions: [SQLFragment] = []
        if plan.rows.needsEntityFilter {
            conditions.append(SQLFragment("t0.Z_ENT IN (" + plan.rows.entityCodes.map(String.init).joined(separator: ", ") + ")"))
        }
        if let predicate = plan.rows.predicate { conditions.append(try compiler.compile(predicate)) }
        let groupKeys = try plan.groupKeys.map { try compiler.operand($0.expression) }
        let columns = try plan.columns.map { try expression($0.expression, groupKeys: groupKeys, compiler: compiler) }
        var items: [SQLFragment] = []
        var reads: [ColumnRead] = []
        for (index, column) in plan.columns.enumerated() where column.isVisible {
            if column.kind == .object, let objects = try objectColumns(column.expression, compiler: compiler) {
                reads.append(.object(key: Int32(items.count), entity: Int32(items.count + 1)))
                items.append(objects.key)
                items.append(plan.isAggregate ? "MIN(" + objects.entity + ")" : objects.entity)
            } else {
                reads.append(.value(Int32(items.count)))
                items.append(columns[index])
            }
        }
        var having: SQLFragment?
        if let predicate = plan.having {
            scope.resultColumns = columns
            having = try compiler.compile(predicate)
        }
        var orderTerms: [SQLFragment] = []
        for order in plan.orders {
            let term = try expression(order.expression, groupKeys: groupKeys, compiler: compiler)
            orderTerms.append(term + SQLNames.collate(order.collation) + (order.ascending ? " ASC" : " DESC"))
        }
        if plan.ordersByObject { orderTerms.append(SQLFragment("t0.Z_PK ASC")) }

        var sql = SQLFragment(plan.distinct ? "SELECT DISTINCT " : "SELECT ") + SQLFragment.join(items, separator: ", ")
        sql = sql + " FROM " + SQLFragment.identifier(table.name) + " t0"
        for join in scope.joins { sql.text += " " + join }
        if !conditions.isEmpty { sql = sql + " WHERE " + SQLFragment.join(conditions, separator: " AND ") }
        if !groupKeys.isEmpty {
            let terms = zip(groupKeys, plan.groupKeys).map { $0 + SQLNames.collate($1.collation) }
            sql = sql + " GROUP BY " + SQLFragment.join(terms, separator: ", ")
        }
        if let having { sql = sql + " HAVING " + having }
        if !orderTerms.isEmpty { sql = sql + " ORDER BY " + SQLFragment.join(orderTerms, separator: ", ") }
        if plan.limit > 0 || plan.offset > 0 {
            sql = sql + " LIMIT " + SQLFragment.value(.integer(plan.limit > 0 ? Int64(plan.limit) : -1)) + " OFFSET " + SQLFragment.value(.integer(Int64(plan.offset)))
        }
        return (sql, reads)
    }

    /// The SQL value of a result expression (an object is its primary key).
    private func expression(_ expression: ResultExpression, groupKeys: [SQLFragment], compiler: PredicateSQLCompiler) throws -> SQLFragment {
        switch expression {
        case .row(let bound):
            return try compiler.operand(bound)
        case .groupKey(let index, _):
            guard index < groupKeys.count else { return SQLFragment("NULL") }
            return groupKeys[index]
        case .aggregate(let aggregate, let argument):
            let value = try compiler.operand(argument)
            let decimal = argument.kind == .decimal
            switch aggregate {
            case .count: return "COUNT(" + value + ")"
            case .sum: return SQLFragment(decimal ? SQLNames.decimalSumAggregate : SQLNames.sumAggregate) + "(" + value + ")"
            case .avg: return SQLFragment(decimal ? SQLNames.decimalAverageAggregate : SQLNames.averageAggregate) + "(" + value + ")"
            case .min: return "MIN(" + value + SQLNames.collate(ResultExpression.collation(for: argument.kind)) + ")"
            case .max: return "MAX(" + value + SQLNames.collate(ResultExpression.collation(for: argument.kind)) + ")"
            }
        case .function(let function, let args):
            let compiled = try args.map { try self.expression($0, groupKeys: groupKeys, compiler: compiler) }
            return SQLFragment(SQLNames.scalarFunction + "(" + String(SQLNames.code(of: function))) + compiled.reduce(SQLFragment("")) { $0 + ", " + $1 } + ")"
        }
    }

    /// The key and entity-code columns of an object-valued column. The key is the foreign key
    /// itself (as the in-memory engine reads it); the entity code comes from the joined row.
    private func objectColumns(_ expression: ResultExpression, compiler: PredicateSQLCompiler) throws -> (key: SQLFragment, entity: SQLFragment)? {
        let path: BoundPath
        switch expression {
        case .row(.object(let objectPath)): path = objectPath
        case .groupKey(let index, _):
            guard index < plan.groupKeys.count, case .object(let objectPath) = plan.groupKeys[index].expression else { return nil }
            path = objectPath
        default: return nil
        }
        return (try compiler.operand(.object(path)), try compiler.objectColumns(of: path).entity)
    }
}
