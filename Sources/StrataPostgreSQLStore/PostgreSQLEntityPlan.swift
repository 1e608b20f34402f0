import Foundation
import Strata
import StrataPostgreSQL

/// How the store reads and writes the rows of one entity: its table, the select list shared by
/// every entity of the table, and where each stored attribute and to-one is. The select list
/// names `"$entity"` only for a table holding several entities: every row of a table of one
/// entity is that entity's, and a read of every row would otherwise have the server print and
/// send the same name with each.
///
/// Made once per entity when the store is created; immutable, usable from any thread. A class,
/// so that looking a plan up for every fetched row retains it rather than copying its fields.
final class PostgreSQLEntityPlan: @unchecked Sendable {
    // @unchecked Sendable: immutable; holds the model's frozen descriptions.

    /// One stored property of the entity and its column.
    struct Field {
        /// What the property is.
        enum Kind {
            /// A stored attribute.
            case attribute(AttributeDescription)
            /// A to-one relationship; the column holds the target's key.
            case toOne(RelationshipDescription)
        }
        /// The property's name (the node key).
        let key: String
        /// The quoted column name.
        let quotedColumn: String
        /// The column's index in ``PostgreSQLEntityPlan/selectList`` results.
        let columnIndex: Int
        /// What the property is.
        let kind: Kind
        /// Its position among the node's attribute values or to-one targets
        /// (`IncrementalStoreNode.storedAttributes(of:)`, `.toOneRelationships(of:)`).
        let nodeSlot: Int
    }

    /// What reading one stored attribute of a row takes, in plain values (no reference-counted
    /// field, so a loop over every column of every row retains nothing).
    struct AttributeRead {
        /// The column's index in ``PostgreSQLEntityPlan/selectList`` results.
        let column: Int
        /// The attribute's position among the node's column values.
        let slot: Int
        /// The attribute's type.
        let type: AttributeType
        /// Its field's index in ``PostgreSQLEntityPlan/fields`` (for an error's names).
        let field: Int
    }

    /// The entity.
    let entity: EntityDescription
    /// Its table.
    let table: PostgreSQLTable
    /// `"$pk"`, `"$entity"` (only in a table of several entities), `"$version"` and every
    /// property column of the table, in that order.
    let selectList: String
    /// The index of `"$entity"` in ``selectList`` results: nil when the table holds one entity
    /// (its rows are all of ``entity``), else 1. The same for every entity of a table.
    let entityColumnIndex: Int?
    /// The index of `"$version"` in ``selectList`` results (2, or 1 without `"$entity"`).
    let versionColumnIndex: Int
    /// The entity's stored attributes and to-ones.
    let fields: [Field]
    /// The names of the entity and of every entity below it, the entity first.
    let entityNames: [String]
    /// How many attribute values a node of the entity has.
    let attributeCount: Int
    /// How many to-one targets a node of the entity has.
    let toOneCount: Int
    /// The stored attributes of ``fields``, as rows are read.
    let attributeReads: [AttributeRead]
    /// The indexes in ``fields`` of the to-ones.
    let toOneFieldIndexes: [Int]
    /// Whether a to-one's target may be of several entities (its destination's table holds
    /// more than one): its entity is then looked up with one more statement.
    let hasToOnesOfSeveralEntities: Bool

    init(entity: EntityDescription, table: PostgreSQLTable, selectList: String, fields: [Field], entityNames: [String], schema: PostgreSQLSchema) {
        self.entity = entity
        self.table = table
        self.selectList = selectList
        self.entityColumnIndex = table.holdsSeveralEntities ? 1 : nil
        self.versionColumnIndex = table.holdsSeveralEntities ? 2 : 1
        self.fields = fields
        self.entityNames = entityNames
        self.attributeCount = IncrementalStoreNode.storedAttributes(of: entity).count
        self.toOneCount = IncrementalStoreNode.toOneRelationships(of: entity).count
        var attributeReads: [AttributeRead] = []
        var toOneFieldIndexes: [Int] = []
        for (index, field) in fields.enumerated() {
            switch field.kind {
            case .attribute(let attribute): attributeReads.append(AttributeRead(column: field.columnIndex, slot: field.nodeSlot, type: attribute.type, field: index))
            case .toOne: toOneFieldIndexes.append(index)
            }
        }
        self.attributeReads = attributeReads
        self.toOneFieldIndexes = toOneFieldIndexes
        self.hasToOnesOfSeveralEntities = fields.contains { field in
            guard case .toOne(let relationship) = field.kind, let destination = relationship.destinationEntity else { return false }
            return schema.table(for: destination)?.holdsSeveralEntities ?? false
        }
    }

    /// A plan for every entity of `configurationName` that `schema` stores, by entity name.
    /// Pure; callable from any thread (the model is frozen by then).
    static func plans(for model: ManagedObjectModel, configurationName: String?, schema: PostgreSQLSchema) -> [String: PostgreSQLEntityPlan] {
        var plans: [String: PostgreSQLEntityPlan] = [:]
        for entity in model.entities(forConfigurationName: configurationName) {
            guard let table = schema.table(for: entity) else { continue }
            // The columns before the properties, at the indexes `init` gives them.
            let fixed =
                table.holdsSeveralEntities
                ? [PostgreSQLTable.primaryKeyColumn, PostgreSQLTable.entityColumn, PostgreSQLTable.versionColumn]
                : [PostgreSQLTable.primaryKeyColumn, PostgreSQLTable.versionColumn]
            var indexByColumn: [String: Int] = [:]
            for (index, column) in table.columns.enumerated() { indexByColumn[column.name] = fixed.count + index }
            var fields: [Field] = []
            let attributeSlots = Dictionary(
                IncrementalStoreNode.storedAttributes(of: entity).enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
            let toOneSlots = Dictionary(
                IncrementalStoreNode.toOneRelationships(of: entity).enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
            for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name }) where !attribute.isTransient {
                guard let column = table.column(forKey: attribute.name, ofEntityNamed: entity.name), let index = indexByColumn[column],
                    let quoted = try? PostgreSQLIdentifier.quoted(column), let slot = attributeSlots[attribute.name]
                else { continue }
                fields.append(Field(key: attribute.name, quotedColumn: quoted, columnIndex: index, kind: .attribute(attribute), nodeSlot: slot))
            }
            for relationship in entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) where !relationship.isTransient && !relationship.isToMany {
                guard let column = table.column(forKey: relationship.name, ofEntityNamed: entity.name), let index = indexByColumn[column],
                    let quoted = try? PostgreSQLIdentifier.quoted(column), let slot = toOneSlots[relationship.name]
                else { continue }
                fields.append(Field(key: relationship.name, quotedColumn: quoted, columnIndex: index, kind: .toOne(relationship), nodeSlot: slot))
            }
            let selectList = (fixed.map { "\"\($0)\"" } + table.columns.map(\.quotedName)).joined(separator: ", ")
            var names: [String] = []
            var queue = [entity]
            while !queue.isEmpty {
                let next = queue.removeFirst()
                names.append(next.name)
                queue.append(contentsOf: next.subentities.sorted { $0.name < $1.name })
            }
            plans[entity.name] = PostgreSQLEntityPlan(entity: entity, table: table, selectList: selectList, fields: fields, entityNames: names, schema: schema)
        }
        return plans
    }
}
