import Foundation

/// The SQL of an in-place lightweight migration of a SQLite store from one model's layout
/// (`SQLiteSchema` of the source model) to another's, following SQLite's documented procedure
/// for changing a table ("Making Other Kinds Of Table Schema Changes" in its `ALTER TABLE`
/// documentation): every changed table of the destination layout is created under a temporary
/// name and filled with `INSERT … SELECT` from the source tables (a copied column, a `CAST` for a
/// widened type, the default value for a missing required value, `NULL` for a new optional
/// attribute), the source tables are dropped, the new ones renamed and the indexes created. A
/// table that would be copied unchanged is kept (`isKept(_:keys:)`).
///
/// Entity codes are remapped (`Z_ENT`, foreign keys' `_ENT` columns, `Z_PRIMARYKEY`, the
/// persistent history's `ZENTITY`). Primary keys are kept, except when rows of several source
/// tables land in one destination table (an entity moving into an inheritance tree): each
/// further source table's keys are shifted past the previous ones' highest key ever handed out
/// (its "ceiling"), and every foreign key, join-table row and history row pointing at them is
/// shifted alike. The mapping must hold only `copy`, `transform`, `add` and `remove` entity
/// mappings whose property mappings copy a source property or take the default. No database
/// connection: the store (Stores/SQLite/SQLiteStore+Migration.swift) runs the statements in one
/// transaction.
struct MigrationStatements {
    /// One source entity whose instances become instances of one destination entity.
    struct EntityPair {
        let source: EntityDescription
        let destination: EntityDescription
        let mapping: EntityMapping
    }

    let source: SQLiteSchema
    let destination: SQLiteSchema
    let mapping: MappingModel
    /// The copied and transformed entities.
    let pairs: [EntityPair]
    /// The destination entity of each source entity code (removed entities have none).
    let destinationByCode: [Int64: EntityDescription]
    private let pairBySourceCode: [Int64: EntityPair]
    private let pairByDestinationCode: [Int64: EntityPair]

    /// The prefix of a destination table while it is being built.
    static let buildingPrefix = "Z_MIGRATING_"

    /// Resolves `mapping` against the two layouts. Throws (134110) for a mapping the store
    /// cannot run by itself: a custom or undefined entity mapping, one with a source-instances
    /// predicate, sub-entities' instances or a policy class, an unknown entity or property, or a property mapping that is
    /// neither a plain copy nor the default.
    init(source: SQLiteSchema, destination: SQLiteSchema, mapping: MappingModel) throws {
        self.source = source
        self.destination = destination
        self.mapping = mapping
        var pairs: [EntityPair] = []
        func fail(_ message: String) -> StrataError {
            StrataError(code: StrataError.Code.migration, message: "The mapping model cannot be run in place by the SQLite store: " + message)
        }
        for entityMapping in mapping.entityMappings {
            switch entityMapping.mappingType {
            case .add, .remove: continue
            case .custom, .undefined:
                throw fail("entity mapping \(entityMapping.name) is \(entityMapping.mappingType.rawValue) (use a MigrationManager)")
            case .copy, .transform: break
            }
            if entityMapping.sourceInstancesPredicate != nil || entityMapping.sourceInstancesIncludeSubentities || entityMapping.policyClass != nil {
                throw fail("entity mapping \(entityMapping.name) filters its source instances, includes its sub-entities' or has a migration policy (use a MigrationManager)")
            }
            guard let sourceName = entityMapping.sourceEntityName, let sourceEntity = source.model.entitiesByName[sourceName],
                let destinationName = entityMapping.destinationEntityName, let destinationEntity = destination.model.entitiesByName[destinationName]
            else {
                throw fail("entity mapping \(entityMapping.name) names an entity missing from its model")
            }
            for propertyMapping in entityMapping.attributeMappings + entityMapping.relationshipMappings where propertyMapping.valueExpression != nil {
                guard let name = propertyMapping.sourcePropertyName, sourceEntity.propertiesByName[name] != nil else {
                    throw fail("\(entityMapping.name).\(propertyMapping.name ?? "?") is not a copy of a source property")
                }
            }
            pairs.append(EntityPair(source: sourceEntity, destination: destinationEntity, mapping: entityMapping))
        }
        self.pairs = pairs
        var bySource: [Int64: EntityPair] = [:]
        var byDestination: [Int64: EntityPair] = [:]
        var destinations: [Int64: EntityDescription] = [:]
        for pair in pairs {
            bySource[pair.source.layout.code] = pair
            byDestination[pair.destination.layout.code] = pair
            destinations[pair.source.layout.code] = pair.destination
        }
        self.pairBySourceCode = bySource
        self.pairByDestinationCode = byDestination
        self.destinationByCode = destinations
    }

    /// Whether every source entity continues under its own code (none removed, none renumbered).
    private var isIdentity: Bool {
        source.model.entities.allSatisfy { destinationByCode[$0.layout.code]?.layout.code == $0.layout.code }
    }

    // MARK: Keys

    /// How source keys move: per source entity code, the amount added to its keys.
    struct KeyPlan {
        var offsetByCode: [Int64: Int64] = [:]
        /// Per destination table, the highest key handed out so far (Z_PRIMARYKEY's Z_MAX).
        var ceilingByTable: [String: Int64] = [:]
    }

    /// The statement that reads a source table's ceiling: the larger of its highest key and the
    /// last key `Z_PRIMARYKEY` handed out for its root.
    func ceilingQuery(ofSourceTable name: String) -> String? {
        guard let table = source.tables[name] else { return nil }
        return "SELECT MAX(COALESCE((SELECT MAX(Z_PK) FROM \(quoted(name))), 0), COALESCE((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(table.root.layout.code)), 0))"
    }

    /// The key offsets, given each source table's ceiling: in each destination table, the
    /// source tables feeding it (by name) keep their keys for the first, and are shifted past
    /// the sum of the previous ceilings for the others.
    func keyPlan(ceilings: [String: Int64]) -> KeyPlan {
        var plan = KeyPlan()
        for name in destination.tableOrder {
            let feeding = pairs.filter { destination.table(for: $0.destination)?.name == name }
            let sourceTables = Set(feeding.compactMap { source.table(for: $0.source)?.name }).sorted()
            var offset: Int64 = 0
            var ceiling: Int64 = 0
            for tableName in sourceTables {
                for pair in feeding where source.table(for: pair.source)?.name == tableName {
                    plan.offsetByCode[pair.source.layout.code] = offset
                }
                let tableCeiling = ceilings[tableName] ?? 0
                ceiling = offset + tableCeiling
                offset += tableCeiling
            }
            plan.ceilingByTable[name] = ceiling
        }
        return plan
    }

    // MARK: Statements

    /// Every statement of the migration, in order, for the key plan. `hasHistory`: the store
    /// keeps a persistent history whose entity codes and keys follow the rows.
    func statements(keys: KeyPlan, hasHistory: Bool) -> [String] {
        var statements: [String] = []
        let kept = Set(keptTables(keys: keys))
        for name in destination.tableOrder where !kept.contains(name) {
            guard let table = destination.tables[name] else { continue }
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER NOT NULL", "Z_OPT INTEGER NOT NULL DEFAULT 1"]
            columns += table.columns.map { "\(quoted($0.name)) \($0.declaration)".trimmingCharacters(in: .whitespaces) }
            statements.append("CREATE TABLE \(quoted(Self.buildingPrefix + name)) (\(columns.joined(separator: ", ")))")
            for pair in pairs where destination.table(for: pair.destination)?.name == name {
                if let insert = rowCopy(pair, into: table, keys: keys) { statements.append(insert) }
            }
        }
        for join in destination.joinTables {
            let order = join.isOrdered ? ", Z_ORDER INTEGER" : ""
            statements.append(
                "CREATE TABLE \(quoted(Self.buildingPrefix + join.name)) (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL\(order), PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID")
            if let insert = joinCopy(join, keys: keys) { statements.append(insert) }
        }
        for name in source.tableOrder + source.joinTables.map(\.name) where !kept.contains(name) {
            statements.append("DROP TABLE IF EXISTS \(quoted(name))")
        }
        for name in destination.tableOrder.filter({ !kept.contains($0) }) + destination.joinTables.map(\.name) {
            statements.append("ALTER TABLE \(quoted(Self.buildingPrefix + name)) RENAME TO \(quoted(name))")
        }
        statements += destination.indexStatements
        statements.append("DELETE FROM Z_PRIMARYKEY")
        for entity in destination.model.entities.sorted(by: { $0.layout.code < $1.layout.code }) {
            var maximum = "0"
            if entity.superentity == nil, let table = destination.table(for: entity) {
                maximum = "MAX(\(keys.ceilingByTable[table.name] ?? 0), COALESCE((SELECT MAX(Z_PK) FROM \(quoted(table.name))), 0))"
            }
            statements.append(
                "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (\(entity.layout.code), \(Self.literal(.text(entity.name))), \(entity.superentity?.layout.code ?? 0), \(maximum))"
            )
        }
        if hasHistory { statements += historyRemap(keys: keys) }
        return statements
    }

    /// Counts the rows of one entity (its own, not its sub-entities') in a layout.
    static func rowCount(of entity: EntityDescription, in schema: SQLiteSchema) -> String? {
        guard let table = schema.table(for: entity) else { return nil }
        return "SELECT count(*) FROM \(quoted(table.name)) WHERE Z_ENT = \(entity.layout.code)"
    }

    /// Queries counting, per attribute that becomes required without a default value, the
    /// rows that have no value for it (Core Data infers the change; instances without a value
    /// then fail validation and the migration with them). Each returns one count; `place` is
    /// `Entity.attribute` of the destination.
    func requiredValueChecks() -> [(place: String, sql: String)] {
        var checks: [(place: String, sql: String)] = []
        for pair in pairs {
            guard let sourceTable = source.table(for: pair.source) else { continue }
            for attribute in pair.destination.layout.storedAttributes where !attribute.isOptional && defaultLiteral(of: attribute, in: pair.destination) == "NULL" {
                guard let sourceName = pair.mapping.attributeMapping(named: attribute.name)?.sourcePropertyName,
                    let old = pair.source.attributesByName[sourceName], old.isOptional, let column = source.attributeColumn(old, of: pair.source)
                else { continue }
                checks.append(
                    (
                        "\(pair.destination.name).\(attribute.name)",
                        "SELECT count(*) FROM \(quoted(sourceTable.name)) WHERE Z_ENT = \(pair.source.layout.code) AND \(quoted(column)) IS NULL"
                    ))
            }
        }
        return checks
    }

    // MARK: Rows

    /// `INSERT … SELECT` of one entity's rows into its destination table (being built).
    private func rowCopy(_ pair: EntityPair, into table: SQLiteSchema.Table, keys: KeyPlan) -> String? {
        guard let sourceTable = source.table(for: pair.source) else { return nil }
        let columns = rowColumns(pair, in: table, keys: keys)
        return
            "INSERT INTO \(quoted(Self.buildingPrefix + table.name)) (\(columns.map { quoted($0.name) }.joined(separator: ", "))) SELECT \(columns.map(\.value).joined(separator: ", ")) FROM \(quoted(sourceTable.name)) AS s WHERE s.Z_ENT = \(pair.source.layout.code)"
    }

    /// The destination columns of one entity's rows and the SQL value of each, over the source
    /// row `s`.
    private func rowColumns(_ pair: EntityPair, in table: SQLiteSchema.Table, keys: KeyPlan) -> [(name: String, value: String)] {
        let offset = keys.offsetByCode[pair.source.layout.code] ?? 0
        var columns: [(name: String, value: String)] = [
            ("Z_PK", offset == 0 ? "s.Z_PK" : "s.Z_PK + \(offset)"), ("Z_ENT", "\(pair.destination.layout.code)"), ("Z_OPT", "s.Z_OPT"),
        ]
        for attribute in MappingModel.storedAttributes(of: pair.destination) {
            guard let column = destination.attributeColumn(attribute, of: pair.destination) else { continue }
            columns.append((column, attributeValue(attribute, pair: pair)))
        }
        for relationship in MappingModel.storedRelationships(of: pair.destination) where !relationship.isToMany {
            guard let names = destination.foreignKeyColumn(relationship, of: pair.destination) else { continue }
            let value = toOneValue(relationship, pair: pair, keys: keys)
            columns.append((names.key, value.key))
            if let code = names.entityCode { columns.append((code, value.entityCode)) }
        }
        // Ordered one-to-many positions kept in a column of the same name in the source table.
        let sourceColumns = Set(source.table(for: pair.source)?.columns.map(\.name) ?? [])
        for column in table.columns where column.name.hasPrefix("Z_FOK_") && sourceColumns.contains(column.name) && !columns.contains(where: { $0.name == column.name }) {
            columns.append((column.name, "s.\(quoted(column.name))"))
        }
        return columns
    }

    /// The destination tables kept as they are (see ``isKept(_:keys:)``).
    func keptTables(keys: KeyPlan) -> [String] {
        destination.tableOrder.filter { isKept($0, keys: keys) }
    }

    /// The indexes of a table (binds its name) that SQLite did not make itself: on a kept table,
    /// those the destination model no longer has are dropped.
    static let indexesOfTable = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = ?"

    /// Whether the destination table `name` is the source table of the same name unchanged, so
    /// the migration keeps it as it is: the same columns, the same entities with the same codes
    /// (none removed), keys not shifted, and every value a plain copy of its own column.
    func isKept(_ name: String, keys: KeyPlan) -> Bool {
        guard let table = destination.tables[name], let old = source.tables[name],
            table.columns.map(\.name) == old.columns.map(\.name), table.columns.map(\.declaration) == old.columns.map(\.declaration)
        else { return false }
        let feeding = pairs.filter { destination.table(for: $0.destination)?.name == name }
        let sourceCodes = Set(source.model.entities.filter { source.table(for: $0)?.name == name }.map(\.layout.code))
        guard Set(feeding.map(\.source.layout.code)) == sourceCodes, feeding.allSatisfy({ source.table(for: $0.source)?.name == name }) else { return false }
        for pair in feeding {
            guard pair.source.layout.code == pair.destination.layout.code, (keys.offsetByCode[pair.source.layout.code] ?? 0) == 0 else { return false }
            for column in rowColumns(pair, in: table, keys: keys) {
                switch column.name {
                case "Z_PK": guard column.value == "s.Z_PK" else { return false }
                case "Z_ENT": guard column.value == "\(pair.source.layout.code)" else { return false }
                case "Z_OPT": guard column.value == "s.Z_OPT" else { return false }
                default: guard column.value == "s.\(quoted(column.name))" else { return false }
                }
            }
        }
        return true
    }

    /// The value of a destination attribute for a row of `pair`: the source column, widened,
    /// with the default for a required attribute where the source has none.
    private func attributeValue(_ attribute: AttributeDescription, pair: EntityPair) -> String {
        let fallback = defaultLiteral(of: attribute, in: pair.destination)
        guard let sourceName = pair.mapping.attributeMapping(named: attribute.name)?.sourcePropertyName,
            let old = pair.source.attributesByName[sourceName], let column = source.attributeColumn(old, of: pair.source)
        else { return fallback }
        var value = "s.\(quoted(column))"
        switch (old.type, attribute.type) {
        case (.integer16, .double), (.integer32, .double), (.integer64, .double): value = "CAST(\(value) AS REAL)"
        case (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): value = "CAST(\(value) AS TEXT)"
        default: break
        }
        if !attribute.isOptional && old.isOptional && fallback != "NULL" { value = "COALESCE(\(value), \(fallback))" }
        return value
    }

    /// The SQL literal of an attribute's default value (`NULL` without one).
    private func defaultLiteral(of attribute: AttributeDescription, in entity: EntityDescription) -> String {
        let layout = entity.layout
        guard case .attribute(let slot)? = layout.slot(forKey: attribute.name), slot < layout.defaultValues.count else { return "NULL" }
        return Self.literal(layout.defaultValues[slot])
    }

    /// A stored value as a SQL literal.
    static func literal(_ value: StoredValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v):
            guard v.isFinite else { return v.isNaN ? "NULL" : (v > 0 ? "9e999" : "-9e999") }
            return "\(v)"
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    // MARK: Relationships

    /// The key and entity-code values of a destination to-one relationship for a row of `pair`.
    private func toOneValue(_ relationship: RelationshipDescription, pair: EntityPair, keys: KeyPlan) -> (key: String, entityCode: String) {
        let none = (key: "NULL", entityCode: "NULL")
        if let sourceName = pair.mapping.relationshipMapping(named: relationship.name)?.sourcePropertyName,
            let old = pair.source.relationshipsByName[sourceName]
        {
            if !old.isToMany, let columns = source.foreignKeyColumn(old, of: pair.source), let target = old.destinationEntity {
                let code = columns.entityCode.map { "s.\(quoted($0))" }
                return (remapKey("s.\(quoted(columns.key))", code: code, staticEntity: target, keys: keys), remapCode(code, staticEntity: target))
            }
            if let links = links(of: old) {
                return (
                    "(SELECT \(remapKey("l.target", code: "l.tent", staticEntity: nil, keys: keys)) FROM (\(links)) AS l WHERE l.owner = s.Z_PK AND l.oent = s.Z_ENT ORDER BY l.ord, l.target LIMIT 1)",
                    "(SELECT \(remapCode("l.tent", staticEntity: nil)) FROM (\(links)) AS l WHERE l.owner = s.Z_PK AND l.oent = s.Z_ENT ORDER BY l.ord, l.target LIMIT 1)"
                )
            }
            return none
        }
        // A new to-one whose inverse existed: read the inverse's links backwards.
        if let inverse = relationship.inverseRelationship, let inverseOwner = inverse.entity, let inversePair = pairByDestinationCode[inverseOwner.layout.code],
            let sourceName = inversePair.mapping.relationshipMapping(named: inverse.name)?.sourcePropertyName,
            let old = inversePair.source.relationshipsByName[sourceName], let links = links(of: old)
        {
            return (
                "(SELECT \(remapKey("l.owner", code: "l.oent", staticEntity: nil, keys: keys)) FROM (\(links)) AS l WHERE l.target = s.Z_PK AND l.tent = s.Z_ENT ORDER BY l.owner LIMIT 1)",
                "(SELECT \(remapCode("l.oent", staticEntity: nil)) FROM (\(links)) AS l WHERE l.target = s.Z_PK AND l.tent = s.Z_ENT ORDER BY l.owner LIMIT 1)"
            )
        }
        return none
    }

    /// The rows of a join table being built, from the links of the source relationship its
    /// owner continues (or, failing that, its inverse's, read backwards).
    private func joinCopy(_ join: SQLiteSchema.JoinTable, keys: KeyPlan) -> String? {
        func sourceRelationship(of relationship: RelationshipDescription?) -> RelationshipDescription? {
            guard let relationship, let owner = relationship.entity, let pair = pairByDestinationCode[owner.layout.code],
                let name = pair.mapping.relationshipMapping(named: relationship.name)?.sourcePropertyName
            else { return nil }
            return pair.source.relationshipsByName[name]
        }
        let target = quoted(Self.buildingPrefix + join.name)
        let columns = join.isOrdered ? "(Z_SOURCE, Z_TARGET, Z_ORDER)" : "(Z_SOURCE, Z_TARGET)"
        var owner = "l.owner"
        var ownerCode = "l.oent"
        var other = "l.target"
        var otherCode = "l.tent"
        var old = sourceRelationship(of: join.owner)
        if old == nil, let inverse = sourceRelationship(of: join.owner.inverseRelationship) {
            old = inverse
            swap(&owner, &other)
            swap(&ownerCode, &otherCode)
        }
        guard let old, let links = links(of: old) else { return nil }
        let sourceKey = remapKey(owner, code: ownerCode, staticEntity: nil, keys: keys)
        let targetKey = remapKey(other, code: otherCode, staticEntity: nil, keys: keys)
        let order = join.isOrdered ? ", COALESCE(l.ord, 0)" : ""
        return "INSERT OR IGNORE INTO \(target) \(columns) SELECT * FROM (SELECT \(sourceKey) AS a, \(targetKey) AS b\(order) FROM (\(links)) AS l) WHERE a IS NOT NULL AND b IS NOT NULL"
    }

    /// A `SELECT` of a source relationship's links as rows `(owner, oent, target, tent, ord)`:
    /// owner and target keys with their source entity codes, and the position when ordered.
    func links(of relationship: RelationshipDescription) -> String? {
        guard let owner = relationship.entity, let target = relationship.destinationEntity,
            let ownerTable = source.table(for: owner), let targetTable = source.table(for: target)
        else { return nil }
        if !relationship.isToMany {
            guard let columns = source.foreignKeyColumn(relationship, of: owner) else { return nil }
            let code = columns.entityCode.map(quoted) ?? "\(target.layout.code)"
            return
                "SELECT Z_PK AS owner, Z_ENT AS oent, \(quoted(columns.key)) AS target, \(code) AS tent, NULL AS ord FROM \(quoted(ownerTable.name)) WHERE \(quoted(columns.key)) IS NOT NULL AND Z_ENT IN (\(codes(of: owner)))"
        }
        switch source.storage(of: relationship) {
        case .foreignKey(let table, let column, let orderColumn, _)?:
            guard let inverse = relationship.inverseRelationship, let inverseColumns = source.foreignKeyColumn(inverse, of: target) else { return nil }
            let ownerCode = inverseColumns.entityCode.map(quoted) ?? "\(owner.layout.code)"
            let ord = orderColumn.map(quoted) ?? "NULL"
            return
                "SELECT \(quoted(column)) AS owner, \(ownerCode) AS oent, Z_PK AS target, Z_ENT AS tent, \(ord) AS ord FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL AND Z_ENT IN (\(codes(of: target)))"
        case .joinTable(let join, let isSourceSide)?:
            let own = isSourceSide ? "j.Z_SOURCE" : "j.Z_TARGET"
            let oth = isSourceSide ? "j.Z_TARGET" : "j.Z_SOURCE"
            let ord = join.isOrdered && isSourceSide ? "j.Z_ORDER" : "NULL"
            return
                "SELECT \(own) AS owner, o.Z_ENT AS oent, \(oth) AS target, t.Z_ENT AS tent, \(ord) AS ord FROM \(quoted(join.name)) AS j JOIN \(quoted(ownerTable.name)) AS o ON o.Z_PK = \(own) JOIN \(quoted(targetTable.name)) AS t ON t.Z_PK = \(oth) WHERE o.Z_ENT IN (\(codes(of: owner))) AND t.Z_ENT IN (\(codes(of: target)))"
        case nil:
            return nil
        }
    }

    /// The codes of an entity and its descendants, as a SQL list.
    private func codes(of entity: EntityDescription) -> String {
        entity.layout.descendantCodes.map(String.init).joined(separator: ", ")
    }

    /// The destination key of a source key whose entity is `code` (a SQL expression) or, without
    /// one, `staticEntity`: shifted by that entity's offset, `NULL` for a removed entity.
    private func remapKey(_ key: String, code: String?, staticEntity: EntityDescription?, keys: KeyPlan) -> String {
        if code == nil, let staticEntity {
            guard destinationByCode[staticEntity.layout.code] != nil else { return "NULL" }
            let offset = keys.offsetByCode[staticEntity.layout.code] ?? 0
            return offset == 0 ? key : "(\(key) + \(offset))"
        }
        guard let code else { return key }
        if isIdentity && keys.offsetByCode.values.allSatisfy({ $0 == 0 }) { return key }
        let cases = source.model.entities.map(\.layout.code).sorted().compactMap { sourceCode -> String? in
            guard destinationByCode[sourceCode] != nil else { return nil }
            let offset = keys.offsetByCode[sourceCode] ?? 0
            return "WHEN \(sourceCode) THEN \(offset == 0 ? key : "\(key) + \(offset)")"
        }
        return cases.isEmpty ? "NULL" : "(CASE \(code) \(cases.joined(separator: " ")) END)"
    }

    /// The destination entity code of a source entity code (a SQL expression) or of
    /// `staticEntity`; `NULL` for a removed entity.
    private func remapCode(_ code: String?, staticEntity: EntityDescription?) -> String {
        if code == nil, let staticEntity { return destinationByCode[staticEntity.layout.code].map { "\($0.layout.code)" } ?? "NULL" }
        guard let code else { return "NULL" }
        if isIdentity { return code }
        let cases = destinationByCode.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value.layout.code)" }
        return cases.isEmpty ? "NULL" : "(CASE \(code) \(cases.joined(separator: " ")) END)"
    }

    // MARK: History

    /// Moves the persistent history's entity codes and keys with the rows; changes of removed
    /// entities are dropped (their objects are gone, and their old code may now name another
    /// entity).
    private func historyRemap(keys: KeyPlan) -> [String] {
        [
            "DELETE FROM Z_HISTORY_CHANGE WHERE ZENTITY NOT IN (\(destinationByCode.keys.sorted().map(String.init).joined(separator: ", ")))",
            "UPDATE Z_HISTORY_CHANGE SET ZENTITYPK = \(remapKey("ZENTITYPK", code: "ZENTITY", staticEntity: nil, keys: keys)), ZENTITY = \(remapCode("ZENTITY", staticEntity: nil))",
        ]
    }
}

/// A SQL identifier in double quotes.
private func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
