/// The `UPDATE` of a batch update (`BatchUpdatePlan`) for the SQLite store: one statement that
/// sets the new values, bumps each row's version (`Z_OPT`) and, when the plan needs them,
/// returns the key and entity code of every updated row and the new values that need a range
/// check. With the
/// same semantics as the in-memory path: the predicate and the expressions are compiled by
/// `PredicateSQLCompiler`.
struct BatchUpdateStatements {
    let schema: SQLiteSchema

    /// The statement, whether it returns rows, and, for each assignment that needs a range
    /// check (in the plan's order), its index in the plan; the checked values follow
    /// `Z_PK, Z_ENT` in the returned rows, in that order. `returningKeys` asks for the keys even
    /// when the plan does not (the store records them in its history).
    func update(_ plan: BatchUpdatePlan, returningKeys: Bool = false) throws -> (sql: SQLFragment, returnsRows: Bool, checked: [Int]) {
        let entity = plan.rows.entity
        guard let table = schema.table(for: entity), let columns = schema.columns(for: entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(entity.name)' is not stored in this store", entityName: entity.name)
        }
        let scope = SQLQueryScope(schema: schema, entity: entity)
        let compiler = PredicateSQLCompiler(scope: scope)
        var names: [String] = []
        var values: [SQLFragment] = []
        for assignment in plan.assignments {
            let index = assignment.slot < columns.attributeColumns.count ? columns.attributeColumns[assignment.slot] - 3 : -1
            guard index >= 0, index < table.columns.count else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "Attribute '\(entity.name).\(assignment.attribute.name)' has no column in the store", entityName: entity.name,
                    key: assignment.attribute.name)
            }
            names.append(SQLFragment.identifier(table.columns[index].name))
            values.append(try compiler.operand(assignment.value))
        }
        var conditions: [SQLFragment] = []
        if plan.rows.needsEntityFilter {
            conditions.append(SQLFragment("t0.Z_ENT IN (" + plan.rows.entityCodes.map(String.init).joined(separator: ", ") + ")"))
        }
        if let predicate = plan.rows.predicate { conditions.append(try compiler.compile(predicate)) }
        let checked = plan.assignments.indices.filter { plan.assignments[$0].needsRangeCheck }
        let returnsRows = plan.returnsObjectIDs || returningKeys || !checked.isEmpty
        let returning = returnsRows ? " RETURNING " + (["Z_PK", "Z_ENT"] + checked.map { names[$0] }).joined(separator: ", ") : ""
        let tableName = SQLFragment.identifier(table.name)
        let whereClause = conditions.isEmpty ? nil : SQLFragment.join(conditions, separator: " AND ")
        var sql: SQLFragment
        if scope.joins.isEmpty {
            // The common case: the row's own columns only, one pass over the matching rows.
            let sets = zip(names, values).map { $0.0 + " = " + $0.1 }
            sql = "UPDATE " + tableName + " AS t0 SET " + SQLFragment.join(sets + [SQLFragment("Z_OPT = t0.Z_OPT + 1")], separator: ", ")
            if let whereClause { sql = sql + " WHERE " + whereClause }
        } else {
            // To-one key paths need joins, which UPDATE cannot take: each new value is read by
            // a correlated SELECT over the joined row, the rows by a SELECT of their keys.
            let joined = tableName + " t0 " + scope.joins.joined(separator: " ")
            let sets = zip(names, values).map { $0.0 + " = (SELECT " + $0.1 + " FROM " + joined + " WHERE t0.Z_PK = " + tableName + ".Z_PK)" }
            sql = "UPDATE " + tableName + " SET " + SQLFragment.join(sets + [SQLFragment("Z_OPT = Z_OPT + 1")], separator: ", ")
            var keys = "SELECT t0.Z_PK FROM " + SQLFragment(joined)
            if let whereClause { keys = keys + " WHERE " + whereClause }
            sql = sql + " WHERE " + tableName + ".Z_PK IN (" + keys + ")"
        }
        return (sql + returning, returnsRows, checked)
    }
}
