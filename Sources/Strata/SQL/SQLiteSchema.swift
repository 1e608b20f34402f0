import Foundation

/// How a model maps onto SQLite tables, following Core Data's layout:
///
/// - one table per inheritance root (`Z<ROOT>`), shared by its sub-entities, with `Z_PK`
///   (integer primary key), `Z_ENT` (entity code, indexed when the root has sub-entities) and
///   `Z_OPT` (row version for optimistic locking);
/// - one column per stored attribute of every entity of the tree (`Z<NAME>`), and one indexed
///   foreign-key column per stored to-one relationship (plus `<fk>_ENT` when the destination has
///   sub-entities);
/// - one-to-many relationships are read through the inverse foreign key; ordered ones keep the
///   position in `Z_FOK_<REL>` on the destination table;
/// - many-to-many relationships (and to-manys without an inverse) use a join table
///   `Z_<ROOT>_<REL>(Z_SOURCE, Z_TARGET[, Z_ORDER])`;
/// - transient attributes and relationships have no column, no join table and no storage;
/// - `Z_METADATA` holds the model's version hashes and the store identifier, `Z_PRIMARYKEY` the
///   entity codes and the last primary key handed out per table.
///
/// Names are derived deterministically from the model, so the same model always gives the same
/// layout. Immutable after construction.
final class SQLiteSchema: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; holds references to frozen model descriptions.

    struct Table {
        let name: String
        let root: EntityDescription
        /// Columns after Z_PK, Z_ENT, Z_OPT, in select order.
        var columns: [Column]
        var indexes: [String]

        /// Whether the table holds the rows of one entity only (a root without sub-entities):
        /// then every row is the root's, and reads select its code as a constant in the `Z_ENT`
        /// place instead of reading the column (`FetchStatements`), which the row decoder does
        /// not read either (`SQLiteStore.onlyReadPlan(of:)`).
        var holdsOneEntity: Bool { !root.layout.hasSubentities }
    }

    struct Column {
        let name: String
        let declaration: String
    }

    /// The columns of one entity, by slot, as indexes into the table's select list
    /// (0 = Z_PK, 1 = Z_ENT, 2 = Z_OPT, then `Table.columns`).
    struct EntityColumns {
        let table: String
        var attributeColumns: [Int] = []
        /// By to-one slot; nil for a transient to-one (it has no column).
        var toOneColumns: [ToOneColumns?] = []
    }

    struct ToOneColumns {
        /// Select-list index of the foreign key.
        let key: Int
        /// Select-list index of the destination entity code, for destinations with sub-entities.
        let entityCode: Int?
    }

    /// Where a to-many relationship's membership is stored.
    enum ToManyStorage {
        /// Read through the destination's foreign key (the inverse to-one).
        case foreignKey(table: String, column: String, orderColumn: String?, destinationRoot: EntityDescription)
        /// A join table; `isSourceSide` says whether this relationship's objects are in `Z_SOURCE`.
        case joinTable(JoinTable, isSourceSide: Bool)
    }

    struct JoinTable {
        let name: String
        /// The relationship whose diffs write the rows (the ordered side, else the first by name).
        let owner: RelationshipDescription
        let isOrdered: Bool
    }

    let model: ManagedObjectModel
    private(set) var tables: [String: Table] = [:]
    private(set) var tableOrder: [String] = []
    private var entityColumns: [ObjectIdentifier: EntityColumns] = [:]
    private var toManyStorage: [ObjectIdentifier: ToManyStorage] = [:]
    private(set) var joinTables: [JoinTable] = []
    /// Columns keyed by "table.Z_FOK_x" for ordered one-to-many positions.
    private var orderColumnNames: [ObjectIdentifier: String] = [:]
    /// Every stored to-many relationship declared in the model, sorted by entity name, then name.
    private(set) var toManyRelationships: [RelationshipDescription] = []

    init(model: ManagedObjectModel) {
        self.model = model
        var usedTableNames = Set<String>(["Z_METADATA", "Z_PRIMARYKEY", "Z_MODELCACHE"])
        func uniqueName(_ base: String, in used: inout Set<String>) -> String {
            var candidate = base
            var counter = 1
            while used.contains(candidate.uppercased()) {
                candidate = base + String(counter)
                counter += 1
            }
            used.insert(candidate.uppercased())
            return candidate
        }
        let roots = model.entities.filter { $0.superentity == nil }.sorted { $0.name < $1.name }
        var rootTables: [ObjectIdentifier: String] = [:]
        for root in roots {
            let name = uniqueName("Z" + root.name.uppercased(), in: &usedTableNames)
            rootTables[ObjectIdentifier(root)] = name
            tables[name] = Table(name: name, root: root, columns: [], indexes: [])
            tableOrder.append(name)
        }
        // Columns: walk each tree depth-first, parents before children, properties in order.
        for root in roots {
            guard let tableName = rootTables[ObjectIdentifier(root)], var table = tables[tableName] else { continue }
            var usedColumns = Set<String>(["Z_PK", "Z_ENT", "Z_OPT"])
            var columnForProperty: [ObjectIdentifier: Int] = [:]
            var entityCodeColumn: [ObjectIdentifier: Int] = [:]
            func addColumns(of entity: EntityDescription) {
                for property in entity.properties {
                    switch property {
                    case let attribute as AttributeDescription where !attribute.isTransient:
                        let name = uniqueName("Z" + attribute.name.uppercased(), in: &usedColumns)
                        table.columns.append(Column(name: name, declaration: Self.declaration(for: attribute.type)))
                        columnForProperty[ObjectIdentifier(attribute)] = 2 + table.columns.count
                        if attribute.isIndexed {
                            table.indexes.append("CREATE INDEX IF NOT EXISTS \"\(tableName)_\(name)_INDEX\" ON \"\(tableName)\" (\"\(name)\")")
                        }
                    case let relationship as RelationshipDescription where !relationship.isToMany && !relationship.isTransient:
                        let name = uniqueName("Z" + relationship.name.uppercased(), in: &usedColumns)
                        table.columns.append(Column(name: name, declaration: "INTEGER"))
                        columnForProperty[ObjectIdentifier(relationship)] = 2 + table.columns.count
                        table.indexes.append("CREATE INDEX IF NOT EXISTS \"\(tableName)_\(name)_INDEX\" ON \"\(tableName)\" (\"\(name)\")")
                        if let destination = relationship.destinationEntity, !destination.subentities.isEmpty {
                            let codeName = uniqueName(name + "_ENT", in: &usedColumns)
                            table.columns.append(Column(name: codeName, declaration: "INTEGER"))
                            entityCodeColumn[ObjectIdentifier(relationship)] = 2 + table.columns.count
                        }
                    default:
                        break
                    }
                }
                for sub in entity.subentities.sorted(by: { $0.name < $1.name }) { addColumns(of: sub) }
            }
            addColumns(of: root)
            // Entity column maps.
            func mapEntity(_ entity: EntityDescription) {
                let layout = entity.layout
                var columns = EntityColumns(table: tableName)
                columns.attributeColumns = layout.storedAttributes.map { columnForProperty[ObjectIdentifier($0)] ?? 0 }
                columns.toOneColumns = layout.toOneRelationships.map { relationship in
                    columnForProperty[ObjectIdentifier(relationship)].map { ToOneColumns(key: $0, entityCode: entityCodeColumn[ObjectIdentifier(relationship)]) }
                }
                entityColumns[ObjectIdentifier(entity)] = columns
                for sub in entity.subentities { mapEntity(sub) }
            }
            mapEntity(root)
            // The entity-code index serves fetches of one sub-entity; a table holding one entity
            // has one code, and the index would only slow every insert.
            if !table.holdsOneEntity {
                table.indexes.append("CREATE INDEX IF NOT EXISTS \"\(tableName)_Z_ENT_INDEX\" ON \"\(tableName)\" (\"Z_ENT\")")
            }
            tables[tableName] = table
        }
        // To-many storage (none for transient relationships).
        toManyRelationships = model.entities.flatMap { $0.properties.compactMap { $0 as? RelationshipDescription } }
            .filter { $0.isToMany && !$0.isTransient }
            .sorted { ($0.entity?.name ?? "", $0.name) < ($1.entity?.name ?? "", $1.name) }
        var joinTableByOwner: [ObjectIdentifier: JoinTable] = [:]
        for relationship in toManyRelationships {
            guard let source = relationship.entity, let destination = relationship.destinationEntity else { continue }
            if let inverse = relationship.inverseRelationship, !inverse.isToMany {
                // One-to-many: read through the inverse's foreign key on the destination's table.
                let destinationRoot = destination.rootEntity
                guard let tableName = rootTables[ObjectIdentifier(destinationRoot)],
                    let fkIndex = entityColumns[ObjectIdentifier(destination)]?.toOneColumns[safe: destination.layout.toOneRelationships.firstIndex { $0 === inverse }] ?? nil,
                    var table = tables[tableName]
                else { continue }
                let fkName = table.columns[fkIndex.key - 3].name
                var orderColumn: String?
                if relationship.isOrdered {
                    var used = Set(table.columns.map { $0.name.uppercased() } + ["Z_PK", "Z_ENT", "Z_OPT"])
                    let name = uniqueName("Z_FOK_" + fkName.dropFirst(), in: &used)
                    table.columns.append(Column(name: name, declaration: "INTEGER"))
                    tables[tableName] = table
                    orderColumn = name
                    orderColumnNames[ObjectIdentifier(relationship)] = name
                }
                toManyStorage[ObjectIdentifier(relationship)] = .foreignKey(table: tableName, column: fkName, orderColumn: orderColumn, destinationRoot: destinationRoot)
                continue
            }
            // Many-to-many or no inverse: a join table owned by one side.
            let inverse = relationship.inverseRelationship
            let owner: RelationshipDescription
            if let inverse, inverse !== relationship {
                if inverse.isOrdered {
                    owner = inverse
                } else if relationship.isOrdered {
                    owner = relationship
                } else {
                    owner = (source.name, relationship.name) <= (inverse.entity?.name ?? "", inverse.name) ? relationship : inverse
                }
            } else {
                owner = relationship
            }
            let join: JoinTable
            if let existing = joinTableByOwner[ObjectIdentifier(owner)] {
                join = existing
            } else {
                let ownerRoot = owner.entity?.rootEntity.name.uppercased() ?? "X"
                let name = uniqueName("Z_\(ownerRoot)_\(owner.name.uppercased())", in: &usedTableNames)
                join = JoinTable(name: name, owner: owner, isOrdered: owner.isOrdered)
                joinTableByOwner[ObjectIdentifier(owner)] = join
                joinTables.append(join)
            }
            toManyStorage[ObjectIdentifier(relationship)] = .joinTable(join, isSourceSide: owner === relationship)
        }
    }

    static func declaration(for type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        // No declared type: BLOB affinity keeps −0.0 and integral doubles exactly as bound.
        case .double, .float: return ""
        case .decimal: return "TEXT COLLATE STRATA_DECIMAL"
        case .string, .uri: return "TEXT"
        case .date: return "REAL"
        case .binaryData, .uuid, .transformable: return "BLOB"
        case .undefined, .objectID: return ""
        }
    }

    // MARK: Lookups

    /// The table holding `entity`'s rows.
    func table(for entity: EntityDescription) -> Table? {
        guard let columns = entityColumns[ObjectIdentifier(entity)] else { return nil }
        return tables[columns.table]
    }

    /// The select-list indexes of `entity`'s columns.
    func columns(for entity: EntityDescription) -> EntityColumns? {
        entityColumns[ObjectIdentifier(entity)]
    }

    /// The name of the column at a select-list index of `table`.
    func columnName(_ index: Int, in table: Table) -> String {
        switch index {
        case 0: return "Z_PK"
        case 1: return "Z_ENT"
        case 2: return "Z_OPT"
        default: return table.columns[index - 3].name
        }
    }

    /// The column of an attribute of `entity`.
    func attributeColumn(_ attribute: AttributeDescription, of entity: EntityDescription) -> String? {
        guard let table = table(for: entity), let columns = columns(for: entity),
            case .attribute(let slot)? = entity.layout.slot(forKey: attribute.name), slot < columns.attributeColumns.count
        else { return nil }
        return columnName(columns.attributeColumns[slot], in: table)
    }

    /// The foreign-key column of a to-one relationship of `entity` (nil for a transient one).
    func foreignKeyColumn(_ relationship: RelationshipDescription, of entity: EntityDescription) -> (key: String, entityCode: String?)? {
        guard let table = table(for: entity), let columns = columns(for: entity),
            case .toOne(let slot)? = entity.layout.slot(forKey: relationship.name), slot < columns.toOneColumns.count,
            let toOne = columns.toOneColumns[slot]
        else { return nil }
        return (columnName(toOne.key, in: table), toOne.entityCode.map { columnName($0, in: table) })
    }

    /// Where a to-many relationship is stored.
    func storage(of relationship: RelationshipDescription) -> ToManyStorage? {
        toManyStorage[ObjectIdentifier(relationship)]
    }

    /// The SQL that creates every index (all `IF NOT EXISTS`).
    var indexStatements: [String] {
        creationStatements.filter { $0.hasPrefix("CREATE INDEX") || $0.hasPrefix("CREATE UNIQUE INDEX") }
    }

    /// The quoted index name of a `CREATE [UNIQUE] INDEX IF NOT EXISTS "name" ON …` statement.
    static func indexName(in statement: String) -> String? {
        guard let marker = statement.range(of: "IF NOT EXISTS \"") else { return nil }
        let rest = statement[marker.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The SQL that creates the whole schema.
    var creationStatements: [String] {
        var statements: [String] = [
            "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID TEXT NOT NULL, Z_PLIST BLOB NOT NULL)",
            "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME TEXT NOT NULL, Z_SUPER INTEGER NOT NULL, Z_MAX INTEGER NOT NULL)",
        ]
        for name in tableOrder {
            guard let table = tables[name] else { continue }
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER NOT NULL", "Z_OPT INTEGER NOT NULL DEFAULT 1"]
            // A column without a declared type (a double's) is its quoted name alone.
            columns += table.columns.map { $0.declaration.isEmpty ? "\"\($0.name)\"" : "\"\($0.name)\" \($0.declaration)" }
            statements.append("CREATE TABLE IF NOT EXISTS \"\(name)\" (\(columns.joined(separator: ", ")))")
            statements += table.indexes
        }
        for join in joinTables {
            let order = join.isOrdered ? ", Z_ORDER INTEGER" : ""
            statements.append("CREATE TABLE IF NOT EXISTS \"\(join.name)\" (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL\(order), PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID")
            statements.append("CREATE INDEX IF NOT EXISTS \"\(join.name)_TARGET_INDEX\" ON \"\(join.name)\" (Z_TARGET, Z_SOURCE)")
        }
        for entity in model.entities {
            for (index, constraint) in entity.uniquenessConstraints.enumerated() {
                guard let table = table(for: entity) else { continue }
                let columnNames = constraint.compactMap { key -> String? in
                    if let attribute = entity.attributesByName[key] { return attributeColumn(attribute, of: entity) }
                    if let relationship = entity.relationshipsByName[key] { return foreignKeyColumn(relationship, of: entity)?.key }
                    return nil
                }
                guard columnNames.count == constraint.count else { continue }
                let codes = entity.layout.descendantCodes.map(String.init).joined(separator: ", ")
                statements.append(
                    "CREATE UNIQUE INDEX IF NOT EXISTS \"\(table.name)_\(entity.name.uppercased())_UNIQUE_\(index)\" ON \"\(table.name)\" (\(columnNames.map { "\"\($0)\"" }.joined(separator: ", "))) WHERE Z_ENT IN (\(codes))"
                )
            }
        }
        return statements
    }
}

extension RandomAccessCollection where Index == Int {
    subscript(safe index: Int?) -> Element? {
        guard let index, indices.contains(index) else { return nil }
        return self[index]
    }
}
