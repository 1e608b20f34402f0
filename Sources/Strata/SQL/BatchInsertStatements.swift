/// The `INSERT` of a batch insert (`BatchInsertPlan`) for the SQLite store: one statement,
/// prepared once and run once per row, that writes a row as a context's save does (see
/// `SaveStatements.insert(_:)`: `Z_PK` from `Z_PRIMARYKEY`, the entity's code in `Z_ENT`,
/// version 1 in `Z_OPT`), relationships left NULL. With uniqueness constraints, each constraint
/// gets an upsert clause on its unique index (`SQLiteSchema`'s partial index over the
/// constraint owner's entity codes):
///
/// ```sql
/// INSERT INTO "ZQUAKE" (Z_PK, Z_ENT, Z_OPT, "ZCODE", "ZMAGNITUDE") VALUES (?, 3, 1, ?, ?)
/// ON CONFLICT ("ZCODE") WHERE Z_ENT IN (3) DO UPDATE SET "ZCODE" = excluded."ZCODE",
///   "ZMAGNITUDE" = excluded."ZMAGNITUDE", Z_OPT = Z_OPT + 1 WHERE Z_ENT = 3
/// RETURNING Z_PK                        -- only when the IDs are asked for, or history needs them
/// ```
///
/// A matching row takes every attribute of the new one and a new version, and keeps its key and
/// relationships; a matching row of another entity of the tree is left alone (the statement
/// changes no row, which the store reports as a conflict).
struct BatchInsertStatements {
    let schema: SQLiteSchema

    /// The statement and whether it returns the written row's `Z_PK`: only an upsert does, when
    /// the plan asks for IDs or `returningKeys` (history needs to tell updated rows from new
    /// ones); a new row's key is the one bound. Binds `Z_PK`, then the entity's stored
    /// attributes by slot.
    func insert(_ plan: BatchInsertPlan, returningKeys: Bool = false) throws -> (sql: String, returnsKey: Bool) {
        let entity = plan.entity
        guard let table = schema.table(for: entity), let columns = schema.columns(for: entity), columns.attributeColumns.count == plan.width else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(entity.name)' is not stored in this store", entityName: entity.name)
        }
        var names: [String] = []
        names.reserveCapacity(plan.width)
        for (slot, index) in columns.attributeColumns.enumerated() {
            guard index >= 3, index - 3 < table.columns.count else {
                throw StrataError(
                    code: StrataError.Code.coreData, message: "Attribute '\(entity.name).\(entity.layout.storedAttributes[slot].name)' has no column in the store", entityName: entity.name,
                    key: entity.layout.storedAttributes[slot].name)
            }
            names.append(SQLFragment.identifier(table.columns[index - 3].name))
        }
        let code = entity.layout.code
        var sql = "INSERT INTO \(SQLFragment.identifier(table.name)) (" + (["Z_PK", "Z_ENT", "Z_OPT"] + names).joined(separator: ", ") + ") VALUES (?, \(code), 1"
        sql += String(repeating: ", ?", count: names.count) + ")"
        guard !plan.constraints.isEmpty else { return (sql, false) }
        let assignments = (names.map { "\($0) = excluded.\($0)" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
        for constraint in plan.constraints {
            let targets = constraint.slots.map { names[$0] }.joined(separator: ", ")
            let codes = constraint.owner.layout.descendantCodes.map(String.init).joined(separator: ", ")
            sql += " ON CONFLICT (\(targets)) WHERE Z_ENT IN (\(codes)) DO UPDATE SET \(assignments) WHERE Z_ENT = \(code)"
        }
        guard plan.returnsObjectIDs || returningKeys else { return (sql, false) }
        return (sql + " RETURNING Z_PK", true)
    }
}
