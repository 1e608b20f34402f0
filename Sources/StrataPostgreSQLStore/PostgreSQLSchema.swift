import Foundation
import Strata
import StrataPostgreSQL

/// Where a model's objects live in PostgreSQL: the names of tables, columns and join tables.
/// Everything that writes SQL for the PostgreSQL store takes its names from here.
///
/// The layout follows the SQLite store's (and Core Data's): one table per inheritance root,
/// shared by the root's sub-entities, with
/// - `"$pk"` (`bigint`, the primary key; keys come from the root's sequence, ``PostgreSQLTable/keySequence``),
///   `"$entity"` (`text`, the name of the row's entity) and `"$version"` (`bigint`, the
///   optimistic-locking counter). A `$` cannot occur in an entity or property name, so these
///   never collide with the model's names;
/// - one column per stored (non-transient) attribute and one per stored to-one relationship
///   (the target's key) of every entity of the tree, named after the property; when two
///   entities of one tree declare properties of the same name, the one met later (the root
///   first, then sub-entities breadth first, by name) is named `name$Entity`;
/// - to-many relationships stored as the inverse to-one's column when the inverse is a to-one
///   and the relationship is not ordered, otherwise in a join table (``PostgreSQLJoinTable``)
///   that both sides of a many-to-many share.
///
/// Identifiers longer than PostgreSQL's 63 bytes are cut and end in `$` and a hash of the whole
/// name, so two long names never become one. Every table and sequence lives in one PostgreSQL
/// schema (``namespace``, `public` unless the store is told otherwise), and the quoted names
/// here are qualified with it. Immutable; usable from any thread.
struct PostgreSQLSchema: Sendable {
    /// The PostgreSQL schema (namespace) holding the store's tables, unquoted.
    let namespace: String
    /// The namespace, quoted.
    let quotedNamespace: String
    /// The table holding the store's metadata (one row per key), quoted and qualified.
    let metadataTable: String
    /// The persistent history's tables and transaction-number sequence, quoted and qualified
    /// (PostgreSQLStore+History.swift).
    let history: PostgreSQLHistoryTables

    /// The tables, one per inheritance root of the stored entities, by root entity name.
    let tablesByRootName: [String: PostgreSQLTable]
    /// The table of every stored entity, by entity name.
    private let rootNameByEntityName: [String: String]
    /// The join tables, by name.
    let joinTablesByName: [String: PostgreSQLJoinTable]
    /// Where each to-many relationship is stored, by "Entity.relationship" for every entity
    /// that has it (inherited ones included).
    private let toManyByKey: [String: PostgreSQLToManyStorage]

    /// The layout of the entities of `configurationName` (all entities for `nil`) in `model`.
    /// Throws `PostgreSQLError` for a name PostgreSQL cannot hold (one with a NUL character).
    init(model: ManagedObjectModel, configurationName: String?, namespace: String = "public") throws {
        self.namespace = namespace
        let qualifier = try PostgreSQLIdentifier.quoted(namespace) + "."
        self.quotedNamespace = String(qualifier.dropLast())
        self.metadataTable = qualifier + "\"$metadata\""
        self.history = PostgreSQLHistoryTables(qualifier: qualifier)
        let entities = model.entities(forConfigurationName: configurationName)
        let roots = Dictionary(grouping: entities, by: { $0.rootEntity.name })
        var tables: [String: PostgreSQLTable] = [:]
        var rootOf: [String: String] = [:]
        for rootName in roots.keys.sorted() {
            guard let root = roots[rootName]?.first?.rootEntity else { continue }
            let table = try PostgreSQLTable(root: root, qualifier: qualifier)
            tables[rootName] = table
            for name in table.entityNames { rootOf[name] = rootName }
        }
        var joins: [String: PostgreSQLJoinTable] = [:]
        var toMany: [String: PostgreSQLToManyStorage] = [:]
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            for case let relationship as RelationshipDescription in entity.allProperties
            where relationship.isToMany && !relationship.isTransient {
                guard let storage = try Self.storage(of: relationship, tables: tables, rootOf: rootOf, qualifier: qualifier, joins: &joins) else { continue }
                toMany["\(entity.name).\(relationship.name)"] = storage
            }
        }
        self.tablesByRootName = tables
        self.rootNameByEntityName = rootOf
        self.joinTablesByName = joins
        self.toManyByKey = toMany
    }

    /// The table holding rows of the entity named `entityName`, if the store holds it.
    func table(forEntityNamed entityName: String) -> PostgreSQLTable? {
        rootNameByEntityName[entityName].flatMap { tablesByRootName[$0] }
    }

    /// The table holding rows of `entity`, if the store holds it.
    func table(for entity: EntityDescription) -> PostgreSQLTable? { table(forEntityNamed: entity.name) }

    /// Where the members of `relationship` (a stored to-many) of objects of `entity` are kept.
    func toManyStorage(of relationship: RelationshipDescription, for entity: EntityDescription) -> PostgreSQLToManyStorage? {
        toManyByKey["\(entity.name).\(relationship.name)"]
    }

    /// Every table, root name order.
    var tables: [PostgreSQLTable] { tablesByRootName.keys.sorted().compactMap { tablesByRootName[$0] } }

    /// Every join table, name order.
    var joinTables: [PostgreSQLJoinTable] { joinTablesByName.keys.sorted().compactMap { joinTablesByName[$0] } }

    /// `name` as a PostgreSQL identifier: unchanged up to 63 bytes, else cut at a character
    /// boundary to at most 54 bytes and followed by `$` and eight hex digits of the FNV-1a hash
    /// of the whole name.
    static func identifier(_ name: String) -> String {
        guard name.utf8.count > PostgreSQLIdentifier.maximumLength else { return name }
        var prefix = ""
        for character in name {
            if prefix.utf8.count + String(character).utf8.count > 54 { break }
            prefix.append(character)
        }
        var hash: UInt32 = 0x811c_9dc5
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let hex = String(hash, radix: 16)
        return prefix + "$" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// `name` shortened by ``identifier(_:)`` and double-quoted.
    static func quoted(_ name: String) throws -> String {
        try PostgreSQLIdentifier.quoted(identifier(name))
    }

    private static func storage(
        of relationship: RelationshipDescription, tables: [String: PostgreSQLTable], rootOf: [String: String], qualifier: String,
        joins: inout [String: PostgreSQLJoinTable]
    ) throws -> PostgreSQLToManyStorage? {
        guard let owner = relationship.entity, let destination = relationship.destinationEntity,
            let destinationTable = rootOf[destination.name].flatMap({ tables[$0] })
        else { return nil }
        let inverse = relationship.inverseRelationship
        if let inverse, !inverse.isToMany, !inverse.isTransient, !relationship.isOrdered,
            let column = destinationTable.column(forKey: inverse.name, ofEntityNamed: destination.name)
        {
            return .foreignKey(table: destinationTable, column: column)
        }
        // A join table, shared by both sides of a many-to-many: named after the side whose
        // "Entity.relationship" sorts first (the canonical side), whose objects are "$owner".
        let ownName = "\(owner.name).\(relationship.name)"
        let isCanonical: Bool
        let canonical: RelationshipDescription
        if let inverse, inverse.isToMany, !inverse.isTransient, let inverseOwner = inverse.entity, "\(inverseOwner.name).\(inverse.name)" < ownName {
            isCanonical = false
            canonical = inverse
        } else {
            isCanonical = true
            canonical = relationship
        }
        guard let canonicalOwner = canonical.entity else { return nil }
        let name = identifier("\(canonicalOwner.name)$\(canonical.name)")
        let join: PostgreSQLJoinTable
        if let existing = joins[name] {
            join = existing
        } else {
            let reverse = canonical.inverseRelationship
            join = try PostgreSQLJoinTable(
                name: name, qualifier: qualifier,
                ownerTable: isCanonical ? rootOf[owner.name] ?? owner.rootEntity.name : destinationTable.rootEntityName,
                memberTable: isCanonical ? destinationTable.rootEntityName : rootOf[owner.name] ?? owner.rootEntity.name,
                ordersMembers: canonical.isOrdered,
                ordersOwners: reverse.map { $0.isToMany && $0.isOrdered } ?? false)
            joins[name] = join
        }
        return .joinTable(
            join,
            ownerColumn: isCanonical ? PostgreSQLJoinTable.ownerColumn : PostgreSQLJoinTable.memberColumn,
            memberColumn: isCanonical ? PostgreSQLJoinTable.memberColumn : PostgreSQLJoinTable.ownerColumn,
            positionColumn: isCanonical ? join.memberPositionColumn : join.ownerPositionColumn)
    }
}

/// Where the members of a to-many relationship are kept.
enum PostgreSQLToManyStorage: Sendable {
    /// In `column` of the destination's `table` (the inverse to-one): the members of an owner
    /// are the rows whose `column` holds the owner's key.
    case foreignKey(table: PostgreSQLTable, column: String)
    /// In a join table: the members of an owner are `memberColumn` of the rows whose
    /// `ownerColumn` holds the owner's key, in `positionColumn` order for an ordered one.
    case joinTable(PostgreSQLJoinTable, ownerColumn: String, memberColumn: String, positionColumn: String?)
}

/// The table of one inheritance root. Column names are unquoted identifiers (quote them with
/// ``PostgreSQLSchema/quoted(_:)`` or use the `quoted…` properties).
struct PostgreSQLTable: Sendable {
    /// The primary-key column (`bigint`).
    static let primaryKeyColumn = "$pk"
    /// The column naming the row's entity (`text`).
    static let entityColumn = "$entity"
    /// The optimistic-locking version column (`bigint`, 1 after the insert).
    static let versionColumn = "$version"

    /// The root entity's name.
    let rootEntityName: String
    /// The table's identifier (unquoted).
    let name: String
    /// The table's identifier, quoted and qualified with the namespace.
    let quotedName: String
    /// The sequence primary keys come from, quoted and qualified.
    let keySequence: String
    /// The root and every entity below it, root first, then breadth first by name.
    let entityNames: [String]
    /// Whether rows of several entities share the table (the root has sub-entities): only then
    /// does a row's `"$entity"` tell anything, so only then is it read, filtered and indexed.
    var holdsSeveralEntities: Bool { entityNames.count > 1 }
    /// The property columns, in creation order.
    let columns: [PostgreSQLColumn]
    /// The column of each stored attribute and to-one, by "Entity.property" for every entity
    /// of the tree (inherited properties included).
    private let columnByKey: [String: String]

    /// The layout of `root`'s tree; `qualifier` is the quoted namespace and a dot.
    init(root: EntityDescription, qualifier: String) throws {
        rootEntityName = root.name
        name = PostgreSQLSchema.identifier(root.name)
        quotedName = try qualifier + PostgreSQLIdentifier.quoted(name)
        keySequence = try qualifier + PostgreSQLSchema.quoted("\(root.name)$pk")
        var order: [EntityDescription] = []
        var queue = [root]
        while !queue.isEmpty {
            let entity = queue.removeFirst()
            order.append(entity)
            queue.append(contentsOf: entity.subentities.sorted { $0.name < $1.name })
        }
        entityNames = order.map(\.name)
        var used: Set<String> = [Self.primaryKeyColumn, Self.entityColumn, Self.versionColumn]
        var columns: [PostgreSQLColumn] = []
        var byDeclaration: [ObjectIdentifier: String] = [:]
        for entity in order {
            for property in entity.properties where !property.isTransient {
                let kind: PostgreSQLColumn.Kind
                if let attribute = property as? AttributeDescription {
                    kind = .attribute(attribute.type)
                } else if let relationship = property as? RelationshipDescription, !relationship.isToMany {
                    kind = .toOne(destinationRoot: relationship.destinationEntity?.rootEntity.name ?? "")
                } else {
                    continue
                }
                var column = PostgreSQLSchema.identifier(property.name)
                if used.contains(column) { column = PostgreSQLSchema.identifier("\(property.name)$\(entity.name)") }
                used.insert(column)
                byDeclaration[ObjectIdentifier(property)] = column
                columns.append(PostgreSQLColumn(name: column, quotedName: try PostgreSQLIdentifier.quoted(column), entityName: entity.name, propertyName: property.name, kind: kind))
            }
        }
        var byKey: [String: String] = [:]
        for entity in order {
            // Inherited properties are the ancestor's own description objects: walk up to find them.
            var ancestor: EntityDescription? = entity
            while let current = ancestor {
                for property in current.properties {
                    if let column = byDeclaration[ObjectIdentifier(property)], byKey["\(entity.name).\(property.name)"] == nil {
                        byKey["\(entity.name).\(property.name)"] = column
                    }
                }
                ancestor = current.superentity
            }
        }
        self.columns = columns
        self.columnByKey = byKey
    }

    /// The column of the stored attribute or to-one `key` of the entity named `entityName`.
    func column(forKey key: String, ofEntityNamed entityName: String) -> String? {
        columnByKey["\(entityName).\(key)"]
    }
}

/// One property column of a ``PostgreSQLTable``.
struct PostgreSQLColumn: Sendable {
    /// What the column holds.
    enum Kind: Sendable {
        /// A stored attribute of this type.
        case attribute(AttributeType)
        /// A to-one relationship: the key of a row of `destinationRoot`'s table.
        case toOne(destinationRoot: String)
    }

    /// The identifier (unquoted).
    let name: String
    /// The identifier, quoted.
    let quotedName: String
    /// The entity declaring the property.
    let entityName: String
    /// The property's name.
    let propertyName: String
    /// What the column holds.
    let kind: Kind
}

/// A join table: the pairs of a to-many relationship stored apart from both tables (many-to-many
/// relationships, ordered ones, those without a to-one inverse). `"$owner"` holds keys of the
/// canonical side's objects, `"$member"` keys of its members; `"$position"` orders the members
/// of an owner when the canonical side is ordered, `"$owner_position"` the owners of a member
/// when the other side is an ordered to-many too. The primary key is (`"$owner"`, `"$member"`).
struct PostgreSQLJoinTable: Sendable {
    /// The column holding the canonical side's object key.
    static let ownerColumn = "$owner"
    /// The column holding the member's key.
    static let memberColumn = "$member"

    /// The identifier (unquoted).
    let name: String
    /// The identifier, quoted and qualified with the namespace.
    let quotedName: String
    /// The root entity name of the table `"$owner"` keys point into.
    let ownerTable: String
    /// The root entity name of the table `"$member"` keys point into.
    let memberTable: String
    /// `"$position"` when the canonical side is ordered.
    let memberPositionColumn: String?
    /// `"$owner_position"` when the other side is an ordered to-many.
    let ownerPositionColumn: String?

    init(name: String, qualifier: String, ownerTable: String, memberTable: String, ordersMembers: Bool, ordersOwners: Bool) throws {
        self.name = name
        self.quotedName = try qualifier + PostgreSQLIdentifier.quoted(name)
        self.ownerTable = ownerTable
        self.memberTable = memberTable
        self.memberPositionColumn = ordersMembers ? "$position" : nil
        self.ownerPositionColumn = ordersOwners ? "$owner_position" : nil
    }
}
