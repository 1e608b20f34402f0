/// The SQL of a batch delete (`BatchDeletePlan`) for the SQLite store, with the model's delete
/// rules applied as a context applies them (see `DeleteRuleGraph`).
///
/// When only the matching rows can go (no cascade, deny or inverse to clear, no join-table
/// rows) and they need not be read first (for history tombstones), the delete is one
/// statement, ``direct``. Otherwise it works through a temporary table
/// per table that can lose rows (`temp."Z_DOOMED_<table>"`: key, entity code and the cascade
/// step that reached the row), in this order, all in the caller's transaction:
/// 1. ``seed``: the starting rows, step 0;
/// 2. ``cascadeSteps``, run with step k = 1, 2, … until a round adds no row: the destinations
///    of `cascade` relationships of the rows added at step k − 1;
/// 3. ``denyChecks``: a row of a `deny` relationship that stays refuses the whole delete;
/// 4. ``partnerUpdates``: the partners that stay lose the deleted rows (`nullify` with an
///    inverse): their foreign key is cleared, and each gets a new version (`Z_OPT`);
/// 5. ``joinRowDeletes``: join-table rows of deleted rows go (as a save deletes them);
/// 6. ``deletedKeys`` (when IDs are wanted) and ``deletes``; then ``clears`` empties the
///    temporary tables for the next delete on the connection.
struct BatchDeleteProgram {
    /// Statements that create the temporary tables if the connection has none yet.
    var setup: [String] = []
    var seed: SQLFragment?
    /// Each binds `?1` to the step it adds.
    var cascadeSteps: [String] = []
    /// Each returns the key and entity code of one row whose `deny` relationship holds a row that
    /// stays (none when the delete may go on).
    var denyChecks: [(sql: String, relationship: RelationshipDescription)] = []
    /// Each returns the key and entity code of the rows it changed when the plan asks for them;
    /// `property` names the partners' relationship that lost the deleted rows.
    var partnerUpdates: [(sql: String, property: String)] = []
    var joinRowDeletes: [String] = []
    /// Each returns the key and entity code of the rows a table will lose.
    var deletedKeys: [String] = []
    var deletes: [String] = []
    var clears: [String] = []
    /// The whole delete as one statement (returning key and entity code when IDs are wanted).
    var direct: SQLFragment?
}

/// Builds ``BatchDeleteProgram``s from the schema mapping (`SQLiteSchema`); no connection.
struct BatchDeleteStatements {
    let schema: SQLiteSchema

    /// The program of `plan`. `selection` is the SELECT of the starting rows' keys and entity
    /// codes (`t0.Z_PK, t0.Z_ENT`) for a plan that matches a fetch plan.
    func program(for plan: BatchDeletePlan, selection: SQLFragment?) throws -> BatchDeleteProgram {
        let startTable = try tableName(of: plan.entity)
        let codes = Self.list(plan.entityCodes)
        let rules = plan.rules
        var program = BatchDeleteProgram()
        let returning = plan.returnsObjectIDs ? " RETURNING Z_PK, Z_ENT" : ""
        let joinTables = schema.joinTables.filter { join in
            rules.deletable.contains { entity in
                (join.owner.entity.map { entity.isKindOf(entity: $0) } ?? false) || (join.owner.destinationEntity.map { entity.isKindOf(entity: $0) } ?? false)
            }
        }
        if !rules.reachesOtherRows && joinTables.isEmpty && !plan.readsDeletedRows {
            program.direct = try directDelete(plan, table: startTable, codes: codes, returning: returning, selection: selection)
            return program
        }
        // The tables that can lose rows, each with its temporary table.
        var doomed: [String: String] = [:]
        var doomedOrder: [String] = []
        for entity in rules.deletable {
            let table = try tableName(of: entity)
            guard doomed[table] == nil else { continue }
            let name = "temp." + SQLFragment.identifier("Z_DOOMED_" + table)
            doomed[table] = name
            doomedOrder.append(table)
            program.setup.append("CREATE TABLE IF NOT EXISTS \(name) (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_STEP INTEGER NOT NULL)")
        }
        guard let startDoomed = doomed[startTable] else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(plan.entity.name)' is not stored in this store", entityName: plan.entity.name)
        }
        // 1. The starting rows.
        switch plan.selection {
        case .keys(let keys):
            program.seed = SQLFragment(
                "INSERT OR IGNORE INTO \(startDoomed) (Z_PK, Z_ENT, Z_STEP) SELECT Z_PK, Z_ENT, 0 FROM \(SQLFragment.identifier(startTable)) WHERE Z_PK IN (SELECT value FROM json_each(?)) AND Z_ENT IN (\(codes))",
                [FetchStatements.keyList(keys)])
        case .matching:
            guard let selection else { throw missingSelection(plan) }
            program.seed = "INSERT OR IGNORE INTO \(startDoomed) (Z_PK, Z_ENT, Z_STEP) SELECT Z_PK, Z_ENT, 0 FROM (" + selection + ")"
        }
        // 2. Cascades, one step at a time.
        for relationship in rules.cascades {
            guard let partners = try partners(of: relationship, doomed: doomed), let target = doomed[partners.destinationTable] else { continue }
            program.cascadeSteps.append(
                "INSERT OR IGNORE INTO \(target) (Z_PK, Z_ENT, Z_STEP) SELECT d.Z_PK, d.Z_ENT, ?1 \(partners.from) WHERE x.Z_STEP = ?1 - 1 AND \(partners.filter)")
        }
        // 3. Deny rules.
        for relationship in rules.denies {
            guard let partners = try partners(of: relationship, doomed: doomed) else { continue }
            let staying = doomed[partners.destinationTable].map { " AND d.Z_PK NOT IN (SELECT Z_PK FROM \($0))" } ?? ""
            program.denyChecks.append(("SELECT x.Z_PK, x.Z_ENT \(partners.from) WHERE \(partners.filter)\(staying) LIMIT 1", relationship))
        }
        // 4. Partners that stay lose the deleted rows.
        let changedReturning = plan.returnsChangedIDs ? " RETURNING Z_PK, Z_ENT" : ""
        for relationship in rules.nullifies {
            guard let owner = relationship.entity, let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity,
                let ownerDoomed = doomed[try tableName(of: owner)]
            else { continue }
            let destinationTable = try tableName(of: destination)
            let staying = doomed[destinationTable].map { " AND Z_PK NOT IN (SELECT Z_PK FROM \($0))" } ?? ""
            let destinationCodes = Self.list(destination.layout.descendantCodes)
            let ownerCodes = Self.list(owner.layout.descendantCodes)
            if !inverse.isToMany, let key = schema.foreignKeyColumn(inverse, of: destination) {
                // The partner's foreign key points at the deleted row: clear it.
                var sets = ["\(SQLFragment.identifier(key.key)) = NULL"]
                if let code = key.entityCode { sets.append("\(SQLFragment.identifier(code)) = NULL") }
                sets.append("Z_OPT = Z_OPT + 1")
                program.partnerUpdates.append(
                    (
                        "UPDATE \(SQLFragment.identifier(destinationTable)) SET \(sets.joined(separator: ", ")) WHERE \(SQLFragment.identifier(key.key)) IN (SELECT Z_PK FROM \(ownerDoomed) WHERE Z_ENT IN (\(ownerCodes))) AND Z_ENT IN (\(destinationCodes))\(staying)\(changedReturning)",
                        inverse.name
                    ))
            } else if let partners = try partners(of: relationship, doomed: doomed) {
                // The membership goes with the deleted row or its join rows: the partner's
                // to-many changes, so it gets a new version.
                program.partnerUpdates.append(
                    (
                        "UPDATE \(SQLFragment.identifier(destinationTable)) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (SELECT d.Z_PK \(partners.from) WHERE \(partners.filter))\(staying)\(changedReturning)",
                        inverse.name
                    ))
            }
        }
        // 5. Join rows of deleted rows.
        for join in joinTables {
            for (column, entity) in [("Z_SOURCE", join.owner.entity), ("Z_TARGET", join.owner.destinationEntity)] {
                guard let entity, let source = doomed[try tableName(of: entity)] else { continue }
                program.joinRowDeletes.append(
                    "DELETE FROM \(SQLFragment.identifier(join.name)) WHERE \(column) IN (SELECT Z_PK FROM \(source) WHERE Z_ENT IN (\(Self.list(entity.layout.descendantCodes))))")
            }
        }
        // 6. The rows themselves.
        for table in doomedOrder {
            guard let name = doomed[table] else { continue }
            if plan.returnsObjectIDs { program.deletedKeys.append("SELECT Z_PK, Z_ENT FROM \(name) ORDER BY Z_STEP, Z_PK") }
            program.deletes.append("DELETE FROM \(SQLFragment.identifier(table)) WHERE Z_PK IN (SELECT Z_PK FROM \(name))")
            program.clears.append("DELETE FROM \(name)")
        }
        return program
    }

    /// `DELETE FROM <table> …` of the starting rows: with the fetch plan's conditions on the
    /// table itself when it has no window and no joins, else by the keys `selection` returns.
    private func directDelete(_ plan: BatchDeletePlan, table: String, codes: String, returning: String, selection: SQLFragment?) throws -> SQLFragment {
        let quoted = SQLFragment.identifier(table)
        switch plan.selection {
        case .keys(let keys):
            return SQLFragment("DELETE FROM \(quoted) WHERE Z_PK IN (SELECT value FROM json_each(?)) AND Z_ENT IN (\(codes))\(returning)", [FetchStatements.keyList(keys)])
        case .matching(let rows):
            if rows.limit == 0 && rows.offset == 0 {
                let scope = SQLQueryScope(schema: schema, entity: rows.entity)
                var conditions: [SQLFragment] = []
                if rows.needsEntityFilter { conditions.append(SQLFragment("t0.Z_ENT IN (\(codes))")) }
                if let predicate = rows.predicate { conditions.append(try PredicateSQLCompiler(scope: scope).compile(predicate)) }
                if scope.joins.isEmpty {
                    var sql = SQLFragment("DELETE FROM \(quoted) AS t0")
                    if !conditions.isEmpty { sql = sql + " WHERE " + SQLFragment.join(conditions, separator: " AND ") }
                    return sql + returning
                }
            }
            guard let selection else { throw missingSelection(plan) }
            return "DELETE FROM \(quoted) WHERE Z_PK IN (SELECT Z_PK FROM (" + selection + "))" + returning
        }
    }

    /// The rows at the other end of `relationship` from the deleted rows of its entity: a FROM
    /// clause over the owners' temporary table `x` reaching the partners `d`, and the condition
    /// on both sides' entity codes. Nil when the relationship has no storage or its owner's
    /// table cannot lose rows.
    private func partners(of relationship: RelationshipDescription, doomed: [String: String]) throws -> (from: String, filter: String, destinationTable: String)? {
        guard let owner = relationship.entity, let destination = relationship.destinationEntity else { return nil }
        let ownerTable = try tableName(of: owner)
        let destinationTable = try tableName(of: destination)
        guard let ownerDoomed = doomed[ownerTable] else { return nil }
        let filter = "x.Z_ENT IN (\(Self.list(owner.layout.descendantCodes))) AND d.Z_ENT IN (\(Self.list(destination.layout.descendantCodes)))"
        let partnerTable = SQLFragment.identifier(destinationTable)
        if !relationship.isToMany {
            guard let key = schema.foreignKeyColumn(relationship, of: owner) else { return nil }
            let from = "FROM \(ownerDoomed) x JOIN \(SQLFragment.identifier(ownerTable)) s ON s.Z_PK = x.Z_PK JOIN \(partnerTable) d ON d.Z_PK = s.\(SQLFragment.identifier(key.key))"
            return (from, filter, destinationTable)
        }
        switch schema.storage(of: relationship) {
        case .foreignKey(_, let column, _, _):
            return ("FROM \(ownerDoomed) x JOIN \(partnerTable) d ON d.\(SQLFragment.identifier(column)) = x.Z_PK", filter, destinationTable)
        case .joinTable(let join, let isSourceSide):
            let mine = isSourceSide ? "Z_SOURCE" : "Z_TARGET"
            let other = isSourceSide ? "Z_TARGET" : "Z_SOURCE"
            return ("FROM \(ownerDoomed) x JOIN \(SQLFragment.identifier(join.name)) j ON j.\(mine) = x.Z_PK JOIN \(partnerTable) d ON d.Z_PK = j.\(other)", filter, destinationTable)
        case nil:
            return nil
        }
    }

    private func tableName(of entity: EntityDescription) throws -> String {
        guard let table = schema.table(for: entity) else {
            throw StrataError(code: StrataError.Code.coreData, message: "Entity '\(entity.name)' is not stored in this store", entityName: entity.name)
        }
        return table.name
    }

    private func missingSelection(_ plan: BatchDeletePlan) -> StrataError {
        StrataError(code: StrataError.Code.coreData, message: "Batch delete of \(plan.entity.name): no SELECT of the matching rows was given", entityName: plan.entity.name)
    }

    private static func list(_ codes: [Int64]) -> String {
        codes.map(String.init).joined(separator: ", ")
    }
}
