import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLSchema {
    /// The statements that create the store's schema in an empty namespace, in order: the
    /// namespace itself (`CREATE SCHEMA IF NOT EXISTS`), the key sequences, the tables, their
    /// foreign keys (added after every table exists, so cycles work), the join tables, indexes,
    /// uniqueness constraints and the metadata table. Run them in one transaction.
    ///
    /// - Tables: `"$pk" bigint PRIMARY KEY`, `"$entity" text NOT NULL`, `"$version" bigint NOT
    ///   NULL`, a column per stored attribute (typed by ``PostgreSQLValueMapping/columnType(of:)``)
    ///   and to-one (`bigint`).
    /// - To-one columns: an index, and a foreign key to the destination table's `"$pk"`, `ON DELETE
    ///   SET NULL DEFERRABLE INITIALLY DEFERRED` (a save may insert objects that point at each
    ///   other) — unless the model lets the reference dangle (``keepsReferencesValid(_:)``).
    /// - Join tables: `"$owner"`, `"$member"` (foreign keys `ON DELETE CASCADE`), positions when
    ///   ordered, primary key (`"$owner"`, `"$member"`), an index on (`"$member"`, `"$owner"`).
    /// - Indexes for `isIndexed` attributes and the entities' fetch indexes (their partial-index
    ///   predicates are not applied: the index covers every row), ordered as Strata sorts (nil
    ///   first ascending, last descending) so sorted fetches read them; an `"$entity"` index on
    ///   tables holding several entities.
    /// - Uniqueness constraints as unique indexes limited to the constrained entity and its
    ///   sub-entities (`WHERE "$entity" IN (…)`), as the SQLite store does; NULLs never collide.
    ///
    /// `model` is the model the schema was made from. Pure; callable from any thread.
    func creationStatements(model: ManagedObjectModel, configurationName: String?) throws -> [String] {
        var statements = ["CREATE SCHEMA IF NOT EXISTS \(quotedNamespace)"]
        let pk = "\"\(PostgreSQLTable.primaryKeyColumn)\""
        for table in tables {
            statements.append("CREATE SEQUENCE \(table.keySequence) AS bigint")
            var columns = ["\(pk) bigint PRIMARY KEY", "\"\(PostgreSQLTable.entityColumn)\" text NOT NULL", "\"\(PostgreSQLTable.versionColumn)\" bigint NOT NULL"]
            for column in table.columns {
                switch column.kind {
                case .attribute(let type): columns.append("\(column.quotedName) \(PostgreSQLValueMapping.columnType(of: type))")
                case .toOne: columns.append("\(column.quotedName) bigint")
                }
            }
            statements.append("CREATE TABLE \(table.quotedName) (\(columns.joined(separator: ", ")))")
        }
        for table in tables {
            for column in table.columns {
                guard case .toOne(let destinationRoot) = column.kind, let destination = tablesByRootName[destinationRoot] else { continue }
                if Self.keepsReferencesValid(model.entitiesByName[column.entityName]?.relationshipsByName[column.propertyName]) {
                    statements.append(
                        "ALTER TABLE \(table.quotedName) ADD FOREIGN KEY (\(column.quotedName)) REFERENCES \(destination.quotedName) (\(pk)) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED")
                }
                statements.append("CREATE INDEX ON \(table.quotedName) (\(column.quotedName))")
            }
            if table.holdsSeveralEntities {
                statements.append("CREATE INDEX ON \(table.quotedName) (\"\(PostgreSQLTable.entityColumn)\")")
            }
        }
        for join in joinTables {
            guard let owner = tablesByRootName[join.ownerTable], let member = tablesByRootName[join.memberTable] else { continue }
            let ownerColumn = "\"\(PostgreSQLJoinTable.ownerColumn)\""
            let memberColumn = "\"\(PostgreSQLJoinTable.memberColumn)\""
            var columns = [
                "\(ownerColumn) bigint NOT NULL REFERENCES \(owner.quotedName) (\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED",
                "\(memberColumn) bigint NOT NULL REFERENCES \(member.quotedName) (\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED",
            ]
            for position in [join.memberPositionColumn, join.ownerPositionColumn].compactMap({ $0 }) {
                columns.append("\"\(position)\" bigint")
            }
            columns.append("PRIMARY KEY (\(ownerColumn), \(memberColumn))")
            statements.append("CREATE TABLE \(join.quotedName) (\(columns.joined(separator: ", ")))")
            statements.append("CREATE INDEX ON \(join.quotedName) (\(memberColumn), \(ownerColumn))")
        }
        for entity in model.entities(forConfigurationName: configurationName).sorted(by: { $0.name < $1.name }) {
            guard let table = table(for: entity) else { continue }
            func column(_ key: String) throws -> String? {
                try table.column(forKey: key, ofEntityNamed: entity.name).map { try PostgreSQLIdentifier.quoted($0) }
            }
            // NULLS FIRST: the order Strata sorts in (PostgreSQLSortCompiler writes `ASC NULLS
            // FIRST` and `DESC NULLS LAST`), so a sorted fetch with a limit reads the index
            // (forwards or backwards) instead of sorting the whole table.
            for attribute in entity.properties.compactMap({ $0 as? AttributeDescription }) where attribute.isIndexed && !attribute.isTransient {
                if let quoted = try column(attribute.name) { statements.append("CREATE INDEX ON \(table.quotedName) (\(quoted) NULLS FIRST)") }
            }
            for index in entity.indexes {
                let parts = try index.elements.map { element in
                    try column(element.propertyName).map { $0 + (element.isAscending ? " ASC NULLS FIRST" : " DESC NULLS LAST") }
                }
                let columns = parts.compactMap { $0 }
                guard !columns.isEmpty, columns.count == parts.count else { continue }
                statements.append("CREATE INDEX ON \(table.quotedName) (\(columns.joined(separator: ", ")))")
            }
            let entityList = Self.entityList(below: entity)
            for constraint in entity.uniquenessConstraints {
                let columns = try constraint.compactMap { try column($0) }
                guard !columns.isEmpty, columns.count == constraint.count else { continue }
                statements.append(
                    "CREATE UNIQUE INDEX ON \(table.quotedName) (\(columns.joined(separator: ", "))) WHERE \"\(PostgreSQLTable.entityColumn)\" IN (\(entityList))")
            }
        }
        statements.append("CREATE TABLE \(metadataTable) (key text PRIMARY KEY, value text NOT NULL)")
        return statements
    }

    /// The names of `entity` and every entity below it as SQL string literals, comma-separated.
    static func entityList(below entity: EntityDescription) -> String {
        var names: [String] = []
        var queue = [entity]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            names.append("'" + next.name.replacingOccurrences(of: "'", with: "''") + "'")
            queue.append(contentsOf: next.subentities)
        }
        return names.joined(separator: ", ")
    }

    /// Whether a to-one's column can carry a foreign key: only when deleting the target never
    /// leaves the reference dangling. Core Data leaves it dangling when the target's inverse
    /// relationship has the `noAction` delete rule, and when there is no inverse at all (the
    /// target does not know who points at it); a foreign key would change that.
    static func keepsReferencesValid(_ relationship: RelationshipDescription?) -> Bool {
        guard let inverse = relationship?.inverseRelationship else { return false }
        return inverse.deleteRule != .noAction
    }
}
