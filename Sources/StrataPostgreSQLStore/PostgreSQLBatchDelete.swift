import Foundation
import Strata
import StrataPostgreSQL

/// The SQL of a batch delete (`StoreBatchDeleteRequest`) on PostgreSQL, with the model's delete
/// rules applied as Strata's row-by-row path and the SQLite store apply them. Pure: it writes
/// statements and their parameters, the store runs them (PostgreSQLStore+BatchDelete.swift).
///
/// The rows the delete reaches (the starting rows and, through `cascade` relationships, their
/// destinations, step after step) are found by one recursive query, ``doomedQuery``, which
/// returns the table (an index into ``tables``), key and entity of each, each row once (its
/// `UNION` drops a row already reached, so cascade cycles end). The store locks those rows,
/// runs the query again until it reaches no row it has not locked, then checks the `deny`
/// relationships (``denyQuery(_:)``, one statement), clears the inverse of the partners that
/// stay (``nullifyUpdates(_:)``, one `UPDATE` per relationship, each bumping the partners'
/// versions) and deletes the rows (``deletes(_:)``, one `DELETE` per table; join-table rows go
/// with them by their `ON DELETE CASCADE` foreign keys).
///
/// Not thread-safe (a value made for one delete); its statements run on any connection.
struct PostgreSQLBatchDelete {
    /// The tables that can lose rows, in root-name order (the order rows are locked in, as
    /// saves lock them); a row's table in ``doomedQuery``'s results is its index here.
    let tables: [PostgreSQLTable]
    /// The recursive query of every row the delete reaches: `r` (table index), `pk`, `e`
    /// (entity name), starting rows first. Its parameters are ``doomedParameters``.
    let doomedQuery: String
    /// The parameters of ``doomedQuery`` (those of the starting rows' selection).
    let doomedParameters: [PostgreSQLValue]
    /// Whether the delete reaches only its starting rows and changes no other row: it is
    /// then one statement, ``directDelete``.
    let isDirect: Bool
    /// The whole delete as one `DELETE … RETURNING "$pk", "$entity"` (for ``isDirect``).
    let directDelete: String

    let schema: PostgreSQLSchema
    let request: StoreBatchDeleteRequest
    /// The index in ``tables`` of each table, by root entity name.
    let indexByRoot: [String: Int]

    /// The starting rows, as the store selects them.
    enum Start {
        /// The rows of the request's entity tree matching `whereClause` (over the entity's table
        /// under the fetch alias), with `window` (` ORDER BY … LIMIT … OFFSET …`) when the
        /// request has one.
        case matching(whereClause: String, parameters: [PostgreSQLValue], window: String)
        /// The rows of these keys whose entity is one of `entities`.
        case keys([Int64], entities: [String])
    }

    /// The delete of `request` on `schema`, or nil when a table or relationship it reaches has
    /// no storage in this store (Strata runs it then). `fetchAlias` is the alias the compiled
    /// `start` condition uses for the entity's table.
    init?(_ request: StoreBatchDeleteRequest, start: Start, schema: PostgreSQLSchema, fetchAlias: String) throws {
        self.schema = schema
        self.request = request
        var tables: [PostgreSQLTable] = []
        for entity in request.deletableEntities {
            guard let table = schema.table(for: entity) else { return nil }
            if !tables.contains(where: { $0.rootEntityName == table.rootEntityName }) { tables.append(table) }
        }
        tables.sort { $0.rootEntityName < $1.rootEntityName }
        self.tables = tables
        indexByRoot = Dictionary(uniqueKeysWithValues: tables.enumerated().map { ($0.element.rootEntityName, $0.offset) })
        guard let startTable = schema.table(for: request.entity), let startIndex = indexByRoot[startTable.rootEntityName] else { return nil }
        let pk = Self.pk
        let entityColumn = Self.entityColumn
        let alias = PostgreSQLText.quoted(fetchAlias)
        // The starting rows as (r, pk, e), and their condition for a direct DELETE.
        let seed: String
        let condition: String
        switch start {
        case .matching(let whereClause, let parameters, let window):
            doomedParameters = parameters
            seed = "SELECT \(startIndex) AS r, \(alias).\(pk) AS pk, \(alias).\(entityColumn) AS e FROM \(startTable.quotedName) AS \(alias) WHERE \(whereClause)\(window)"
            condition = window.isEmpty ? whereClause : "\(alias).\(pk) IN (SELECT x.pk FROM (\(seed)) AS x)"
        case .keys(let keys, let entities):
            doomedParameters = [PostgreSQLValueMapping.keyArray(keys), PostgreSQLValueMapping.textArray(entities)]
            condition = "\(alias).\(pk) = ANY($1::bigint[]) AND \(alias).\(entityColumn) = ANY($2::text[])"
            seed = "SELECT \(startIndex) AS r, \(alias).\(pk) AS pk, \(alias).\(entityColumn) AS e FROM \(startTable.quotedName) AS \(alias) WHERE \(condition)"
        }
        directDelete = "DELETE FROM \(startTable.quotedName) AS \(alias) WHERE \(condition) RETURNING \(alias).\(pk), \(alias).\(entityColumn)"
        isDirect = request.cascadeRelationships.isEmpty && request.denyRelationships.isEmpty && request.nullifyRelationships.isEmpty
        // The cascades, each a branch of the recursive step over the rows `d` reached so far.
        var branches: [String] = []
        for relationship in request.cascadeRelationships {
            guard let owner = relationship.entity, let destination = relationship.destinationEntity, let ownerTable = schema.table(for: owner),
                let destinationTable = schema.table(for: destination), let ownerIndex = indexByRoot[ownerTable.rootEntityName],
                let destinationIndex = indexByRoot[destinationTable.rootEntityName]
            else { return nil }
            guard let partners = try Self.partners(of: relationship, owner: owner, ownerTable: ownerTable, destinationTable: destinationTable, ownerKey: "d.pk", schema: schema)
            else { return nil }
            branches.append(
                "SELECT \(destinationIndex) AS r, p.\(pk) AS pk, p.\(entityColumn) AS e \(partners.from) WHERE d.r = \(ownerIndex) AND d.e IN (\(PostgreSQLSchema.entityList(below: owner))) AND \(partners.condition) AND p.\(entityColumn) IN (\(PostgreSQLSchema.entityList(below: destination)))"
            )
        }
        if branches.isEmpty {
            doomedQuery = seed
        } else {
            doomedQuery =
                "WITH RECURSIVE d(r, pk, e) AS ((\(seed)) UNION SELECT x.r, x.pk, x.e FROM d, LATERAL (\(branches.joined(separator: " UNION ALL "))) AS x) SELECT r, pk, e FROM d"
        }
        // Every deny and nullify relationship must have storage here, or Strata runs the delete.
        for relationship in request.denyRelationships + request.nullifyRelationships {
            guard let owner = relationship.entity, let destination = relationship.destinationEntity, let ownerTable = schema.table(for: owner),
                let destinationTable = schema.table(for: destination),
                try Self.partners(of: relationship, owner: owner, ownerTable: ownerTable, destinationTable: destinationTable, ownerKey: "$1", schema: schema) != nil
            else { return nil }
        }
    }

    /// The rows a delete reaches, as ``doomedQuery`` returned them.
    struct Doomed {
        /// Each row: table index, key, entity name, in the order the query reached them.
        var rows: [(table: Int, key: Int64, entity: String)] = []

        /// The keys of the rows in table `index`.
        func keys(inTable index: Int) -> [Int64] { rows.filter { $0.table == index }.map(\.key) }

        /// The keys of the rows in table `index` whose entity is `entity` or below it.
        func keys(inTable index: Int, kindOf entity: EntityDescription) -> [Int64] {
            var names: Set<String> = []
            var queue = [entity]
            while let next = queue.popLast() {
                if names.insert(next.name).inserted { queue += next.subentities }
            }
            return rows.filter { $0.table == index && names.contains($0.entity) }.map(\.key)
        }
    }

    /// For each table holding doomed rows, the statement locking them (in key order) for the
    /// rest of the transaction, and its parameters.
    func locks(_ doomed: Doomed) -> [(sql: String, parameters: [PostgreSQLValue])] {
        tables.indices.compactMap { index in
            let keys = doomed.keys(inTable: index).sorted()
            guard !keys.isEmpty else { return nil }
            return (
                "SELECT 1 FROM \(tables[index].quotedName) WHERE \(Self.pk) = ANY($1::bigint[]) ORDER BY \(Self.pk) FOR UPDATE",
                [PostgreSQLValueMapping.keyArray(keys)]
            )
        }
    }

    /// One statement returning the key of a doomed row (`k`) and the index (`i`) in the
    /// request's deny relationships of its relationship that holds a row that stays; no row
    /// when the delete may go on. Nil when there is no deny relationship.
    func denyQuery(_ doomed: Doomed) throws -> (sql: String, parameters: [PostgreSQLValue])? {
        var parameters = PostgreSQLParameters()
        var checks: [String] = []
        for (index, relationship) in request.denyRelationships.enumerated() {
            guard let partners = try pairs(of: relationship, doomed: doomed, parameters: &parameters),
                let destinationTable = relationship.destinationEntity.flatMap({ schema.table(for: $0) })
            else { continue }
            let staying = stayingCondition(destinationTable, doomed: doomed, parameters: &parameters)
            checks.append("(SELECT \(partners.ownerKey) AS k, \(index) AS i \(partners.from) WHERE \(partners.condition)\(staying) LIMIT 1)")
        }
        guard !checks.isEmpty else { return nil }
        return ("SELECT k, i FROM (\(checks.joined(separator: " UNION ALL "))) AS c LIMIT 1", parameters.values)
    }

    /// For each nullify relationship whose owners include doomed rows, the `UPDATE` of the
    /// partners that stay (their inverse to-one cleared when it is one; a new version in any
    /// case) returning their key, entity and new version, its parameters, and the name of the
    /// partners' relationship that loses the doomed rows.
    func nullifyUpdates(_ doomed: Doomed) throws -> [(sql: String, parameters: [PostgreSQLValue], property: String)] {
        var updates: [(sql: String, parameters: [PostgreSQLValue], property: String)] = []
        for relationship in request.nullifyRelationships {
            guard let inverse = relationship.inverseRelationship, let destination = relationship.destinationEntity, let destinationTable = schema.table(for: destination) else {
                continue
            }
            let version = Self.version
            let returning = " RETURNING p.\(Self.pk), p.\(Self.entityColumn), p.\(version)"
            if !inverse.isToMany, let column = destinationTable.column(forKey: inverse.name, ofEntityNamed: destination.name), let owner = relationship.entity,
                let ownerTable = schema.table(for: owner), let ownerIndex = indexByRoot[ownerTable.rootEntityName]
            {
                // The partner's foreign key points at the doomed row: clear it.
                let owners = doomed.keys(inTable: ownerIndex, kindOf: owner)
                guard !owners.isEmpty else { continue }
                var parameters = PostgreSQLParameters()
                let ownerList = parameters.add(PostgreSQLValueMapping.keyArray(owners))
                let quoted = try PostgreSQLIdentifier.quoted(column)
                let staying = stayingCondition(destinationTable, doomed: doomed, parameters: &parameters)
                updates.append(
                    (
                        "UPDATE \(destinationTable.quotedName) AS p SET \(quoted) = NULL, \(version) = p.\(version) + 1 WHERE p.\(quoted) = ANY(\(ownerList)::bigint[]) AND p.\(Self.entityColumn) IN (\(PostgreSQLSchema.entityList(below: destination)))\(staying)\(returning)",
                        parameters.values, inverse.name
                    ))
                continue
            }
            // The membership goes with the doomed row or its join rows: the partner's to-many
            // changes, so it gets a new version.
            var parameters = PostgreSQLParameters()
            guard let partners = try pairs(of: relationship, doomed: doomed, parameters: &parameters) else { continue }
            let staying = stayingCondition(destinationTable, doomed: doomed, parameters: &parameters)
            updates.append(
                (
                    "UPDATE \(destinationTable.quotedName) AS p SET \(version) = p.\(version) + 1 WHERE p.\(Self.pk) IN (SELECT p.\(Self.pk) \(partners.from) WHERE \(partners.condition))\(staying)\(returning)",
                    parameters.values, inverse.name
                ))
        }
        return updates
    }

    /// For each table holding doomed rows, the `DELETE` of them and its parameters.
    func deletes(_ doomed: Doomed) -> [(sql: String, parameters: [PostgreSQLValue])] {
        tables.indices.compactMap { index in
            let keys = doomed.keys(inTable: index).sorted()
            guard !keys.isEmpty else { return nil }
            return ("DELETE FROM \(tables[index].quotedName) WHERE \(Self.pk) = ANY($1::bigint[])", [PostgreSQLValueMapping.keyArray(keys)])
        }
    }

    // MARK: Relationships as SQL

    private static let pk = "\"\(PostgreSQLTable.primaryKeyColumn)\""
    private static let entityColumn = "\"\(PostgreSQLTable.entityColumn)\""
    private static let version = "\"\(PostgreSQLTable.versionColumn)\""

    /// The partners `p` (rows of `destinationTable`) of the owner whose key is the SQL
    /// `ownerKey`, through `relationship`: a FROM clause, the condition tying `p` to the
    /// owner, and the SQL of the owner's key in that FROM (for `SELECT`s that name the owner).
    /// Nil when the relationship has no storage in this store.
    private static func partners(
        of relationship: RelationshipDescription, owner: EntityDescription, ownerTable: PostgreSQLTable, destinationTable: PostgreSQLTable, ownerKey: String,
        schema: PostgreSQLSchema
    ) throws -> (from: String, condition: String, ownerKey: String)? {
        if !relationship.isToMany {
            guard let column = ownerTable.column(forKey: relationship.name, ofEntityNamed: owner.name) else { return nil }
            return (
                "FROM \(ownerTable.quotedName) AS s JOIN \(destinationTable.quotedName) AS p ON p.\(pk) = s.\(try PostgreSQLIdentifier.quoted(column))",
                "s.\(pk) = \(ownerKey)", "s.\(pk)"
            )
        }
        switch schema.toManyStorage(of: relationship, for: owner) {
        case .foreignKey(_, let column)?:
            let quoted = try PostgreSQLIdentifier.quoted(column)
            return ("FROM \(destinationTable.quotedName) AS p", "p.\(quoted) = \(ownerKey)", "p.\(quoted)")
        case .joinTable(let join, let ownerColumn, let memberColumn, _)?:
            let mine = PostgreSQLText.quoted(ownerColumn)
            let other = PostgreSQLText.quoted(memberColumn)
            return ("FROM \(join.quotedName) AS j JOIN \(destinationTable.quotedName) AS p ON p.\(pk) = j.\(other)", "j.\(mine) = \(ownerKey)", "j.\(mine)")
        case nil:
            return nil
        }
    }

    /// The pairs of `relationship` whose owner is doomed: the partners' FROM and condition,
    /// with the owners' keys added to `parameters` as one array and the partners limited to
    /// the destination's entities. Nil when no doomed row has the relationship.
    private func pairs(
        of relationship: RelationshipDescription, doomed: Doomed, parameters: inout PostgreSQLParameters
    ) throws -> (from: String, condition: String, ownerKey: String)? {
        guard let owner = relationship.entity, let destination = relationship.destinationEntity, let ownerTable = schema.table(for: owner),
            let destinationTable = schema.table(for: destination), let ownerIndex = indexByRoot[ownerTable.rootEntityName]
        else { return nil }
        let owners = doomed.keys(inTable: ownerIndex, kindOf: owner)
        guard !owners.isEmpty else { return nil }
        let list = parameters.add(PostgreSQLValueMapping.keyArray(owners))
        guard
            var partners = try Self.partners(
                of: relationship, owner: owner, ownerTable: ownerTable, destinationTable: destinationTable, ownerKey: "ANY(\(list)::bigint[])", schema: schema)
        else { return nil }
        partners.condition += " AND p.\(Self.entityColumn) IN (\(PostgreSQLSchema.entityList(below: destination)))"
        return partners
    }

    /// ` AND NOT (p."$pk" = ANY(…))` over the doomed rows of `table` (empty when it has none).
    private func stayingCondition(_ table: PostgreSQLTable, doomed: Doomed, parameters: inout PostgreSQLParameters) -> String {
        guard let index = indexByRoot[table.rootEntityName] else { return "" }
        let keys = doomed.keys(inTable: index)
        guard !keys.isEmpty else { return "" }
        return " AND NOT (p.\(Self.pk) = ANY(\(parameters.add(PostgreSQLValueMapping.keyArray(keys)))::bigint[]))"
    }
}

extension PostgreSQLBatchDelete {
    /// The entity name of the doomed row `key` in the table of `relationship`'s owner.
    func entityName(of key: Int64, owning relationship: RelationshipDescription, in doomed: Doomed) -> String? {
        guard let owner = relationship.entity, let table = schema.table(for: owner), let index = indexByRoot[table.rootEntityName] else { return nil }
        return doomed.rows.first { $0.table == index && $0.key == key }?.entity
    }
}
