import Foundation
import Strata
import StrataPostgreSQL

extension PostgreSQLStore {
    /// The most keys one statement asks for; longer lists are read in batches.
    static let keyBatchSize = 5_000

    /// The current rows of the objects `ids` names that still exist, in any order: one
    /// `WHERE "$pk" = ANY($1::bigint[])` statement per table and batch of keys. IDs of other
    /// stores are ignored. Callable from any thread.
    func rows(of ids: [ManagedObjectID], options: ReadOptions) throws -> IncrementalStoreRowList {
        var keysByTable: [String: (plan: PostgreSQLEntityPlan, keys: [Int64])] = [:]
        for id in ids {
            guard let key = referenceObject(for: id) else { continue }
            let plan = try plan(for: id.entity)
            keysByTable[plan.table.rootEntityName, default: (plan, [])].keys.append(key)
        }
        guard !keysByTable.isEmpty else { return IncrementalStoreRowList() }
        return try reading("Reading rows from the PostgreSQL store", options: options) { connection in
            var rows = IncrementalStoreRowList()
            for name in keysByTable.keys.sorted() {
                guard let (plan, keys) = keysByTable[name] else { continue }
                var start = 0
                while start < keys.count {
                    let batch = keys[start..<min(start + Self.keyBatchSize, keys.count)]
                    start += Self.keyBatchSize
                    let result = try run(
                        "SELECT \(plan.selectList) FROM \(plan.table.quotedName) WHERE \"\(PostgreSQLTable.primaryKeyColumn)\" = ANY($1::bigint[])",
                        parameters: [PostgreSQLValueMapping.keyArray(batch)], on: connection)
                    rows.append(contentsOf: try rowList(from: result, plan: plan, on: connection))
                }
            }
            return rows
        }
    }

    /// The members of `relationship` (a to-many) of each owner in `ids`; every owner gets an
    /// entry, an ordered relationship's members come in position order, others in key order.
    /// Callable from any thread.
    func members(of relationship: RelationshipDescription, owners ids: [ManagedObjectID], options: ReadOptions) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        var ownersByKey: [Int64: [ManagedObjectID]] = [:]
        for id in ids {
            result[id] = []
            if let key = referenceObject(for: id) { ownersByKey[key, default: []].append(id) }
        }
        guard let first = ids.first, !ownersByKey.isEmpty, let destination = relationship.destinationEntity,
            let storage = schema.toManyStorage(of: relationship, for: first.entity),
            let destinationTable = schema.table(for: destination)
        else { return result }
        let pk = "\"\(PostgreSQLTable.primaryKeyColumn)\""
        let entityColumn = "\"\(PostgreSQLTable.entityColumn)\""
        let sql: String
        switch storage {
        case .foreignKey(let table, let column):
            let quoted = try PostgreSQLSchema.quoted(column)
            sql = "SELECT \(quoted), \(pk), \(entityColumn) FROM \(table.quotedName) WHERE \(quoted) = ANY($1::bigint[]) ORDER BY \(quoted), \(pk)"
        case .joinTable(let join, let ownerColumn, let memberColumn, let positionColumn):
            let owner = "j.\"\(ownerColumn)\""
            let member = "j.\"\(memberColumn)\""
            let order = positionColumn.map { "j.\"\($0)\", " } ?? ""
            sql =
                "SELECT \(owner), \(member), m.\(entityColumn) FROM \(join.quotedName) j JOIN \(destinationTable.quotedName) m ON m.\(pk) = \(member) WHERE \(owner) = ANY($1::bigint[]) ORDER BY \(owner), \(order)\(member)"
        }
        let keys = Array(ownersByKey.keys).sorted()
        let entities = model.entitiesByName
        try reading("Reading relationship '\(relationship.name)' from the PostgreSQL store", options: options) { connection in
            var start = 0
            while start < keys.count {
                let batch = keys[start..<min(start + Self.keyBatchSize, keys.count)]
                start += Self.keyBatchSize
                for row in try run(sql, parameters: [PostgreSQLValueMapping.keyArray(batch)], on: connection) {
                    guard let ownerKey = try row.int64(0), let memberKey = try row.int64(1), let owners = ownersByKey[ownerKey] else { continue }
                    let entity = try row.string(2).flatMap { entities[$0] } ?? destination
                    let member = newObjectID(for: entity, referenceObject: memberKey)
                    for owner in owners { result[owner, default: []].append(member) }
                }
            }
        }
        return result
    }

    /// The rows of `result` (selected with `first`'s ``PostgreSQLEntityPlan/selectList``), in its
    /// order, with to-one targets of the right (sub-)entity: targets in tables holding several
    /// entities are looked up with one more statement per such table. In a table of several
    /// entities each row's entity is read from its `"$entity"` column; in a table of one, every
    /// row is `first`'s. With `inKeyOrder`, the rows are put in key order (sorted only when a key
    /// came after a greater one). Runs on the thread holding `connection`.
    func rowList(from result: PostgreSQLResult, plan first: PostgreSQLEntityPlan, on connection: PostgreSQLConnection, inKeyOrder: Bool = false) throws
        -> IncrementalStoreRowList
    {
        // A row whose targets' entities must be looked up waits here, with its position.
        struct Pending {
            let position: Int
            let id: ManagedObjectID
            let version: Int64
            let values: [IncrementalStoreNode.ColumnValue]
            let toOne: [ManagedObjectID?]
            let targets: [(slot: Int, relationship: RelationshipDescription, target: Int64)]
        }
        var rows = IncrementalStoreRowList()
        rows.reserveCapacity(result.count)
        var pending: [Pending] = []
        var lookups: [String: Set<Int64>] = [:]
        // Column values and targets by node position (`IncrementalStoreNode.storedAttributes(of:)`),
        // one buffer for every row: a row copies what it needs.
        var values: [IncrementalStoreNode.ColumnValue] = []
        var toOne: [ManagedObjectID?] = []
        // The plan of the row's entity, and its attribute reads held here: read through the plan
        // for every row, the array was retained and released once a row.
        var plan = first
        var reads = first.attributeReads
        // The same for every entity of the table (`PostgreSQLEntityPlan.plans`).
        let entityColumn = first.entityColumnIndex
        let versionColumn = first.versionColumnIndex
        var lastKey = Int64.min
        var keysAscend = true
        for row in result {
            // The name is compared with the entity of the row before's, not made a String.
            if let entityColumn, try row.withUnsafeBytes(entityColumn, { plan.entity.name.utf8.elementsEqual($0) }) != true {
                let name = try row.string(entityColumn)
                guard let name, let next = plans[name], next.table.rootEntityName == first.table.rootEntityName else {
                    throw StrataError(
                        code: StrataError.Code.persistentStoreOperation,
                        message: "A row of the PostgreSQL store's table \(first.table.name) names an entity the table does not hold: \(name ?? "NULL")",
                        url: redactedURL)
                }
                plan = next
                reads = next.attributeReads
            }
            guard let key = try row.int64(0), let version = try row.int64(versionColumn) else {
                throw StrataError(code: StrataError.Code.persistentStoreOperation, message: "A row of the PostgreSQL store has no key or version", url: redactedURL)
            }
            if key <= lastKey { keysAscend = false }
            lastKey = key
            if values.count != plan.attributeCount { values = Array(repeating: .null, count: plan.attributeCount) }
            // Every slot is written: NULL, then the column of each attribute read. Through the
            // buffer, so that each write does not check the array's uniqueness again.
            try values.withUnsafeMutableBufferPointer { values in
                for slot in values.indices { values[slot] = .null }
                for index in reads.indices {
                    let read = reads[index]
                    values[read.slot] = try PostgreSQLValueMapping.columnValue(of: row, column: read.column, type: read.type) {
                        guard case .attribute(let attribute) = plan.fields[read.field].kind else { return nil }
                        return attribute
                    }
                }
            }
            if toOne.count == plan.toOneCount {
                for slot in toOne.indices { toOne[slot] = nil }
            } else {
                toOne = Array(repeating: nil, count: plan.toOneCount)
            }
            var targets: [(slot: Int, relationship: RelationshipDescription, target: Int64)] = []
            for index in plan.toOneFieldIndexes {
                let field = plan.fields[index]
                switch field.kind {
                case .attribute:
                    continue
                case .toOne(let relationship):
                    guard let target = try row.int64(field.columnIndex), let destination = relationship.destinationEntity else { continue }
                    if plan.hasToOnesOfSeveralEntities, let table = schema.table(for: destination), table.holdsSeveralEntities {
                        targets.append((field.nodeSlot, relationship, target))
                        lookups[table.rootEntityName, default: []].insert(target)
                    } else {
                        toOne[field.nodeSlot] = newObjectID(for: destination, referenceObject: target)
                    }
                }
            }
            let id = newObjectID(for: plan.entity, referenceObject: key)
            if targets.isEmpty {
                try rows.append(objectID: id, version: version, columnValues: values, toOneTargets: toOne)
            } else {
                pending.append(Pending(position: rows.count + pending.count, id: id, version: version, values: values, toOne: toOne, targets: targets))
            }
        }
        guard !pending.isEmpty else {
            if inKeyOrder && !keysAscend { rows.sortInKeyOrder() }
            return rows
        }
        var entityOfTarget: [String: [Int64: String]] = [:]
        for (rootName, keys) in lookups {
            guard let table = schema.tablesByRootName[rootName] else { continue }
            let entityRows = try run(
                "SELECT \"\(PostgreSQLTable.primaryKeyColumn)\", \"\(PostgreSQLTable.entityColumn)\" FROM \(table.quotedName) WHERE \"\(PostgreSQLTable.primaryKeyColumn)\" = ANY($1::bigint[])",
                parameters: [PostgreSQLValueMapping.keyArray(keys)], on: connection)
            for row in entityRows {
                if let key = try row.int64(0), let name = try row.string(1) { entityOfTarget[rootName, default: [:]][key] = name }
            }
        }
        // The waiting rows go back to their positions among the others.
        let entities = model.entitiesByName
        var merged = IncrementalStoreRowList()
        merged.reserveCapacity(rows.count + pending.count)
        var taken = 0  // rows of `rows` merged so far
        for item in pending {
            let end = min(rows.count, taken + max(0, item.position - merged.count))
            merged.append(contentsOf: rows, positions: taken..<end)
            taken = end
            var toOne = item.toOne
            for target in item.targets {
                guard let destination = target.relationship.destinationEntity else { continue }
                let name = entityOfTarget[destination.rootEntity.name]?[target.target]
                toOne[target.slot] = newObjectID(for: name.flatMap { entities[$0] } ?? destination, referenceObject: target.target)
            }
            try merged.append(objectID: item.id, version: item.version, columnValues: item.values, toOneTargets: toOne)
        }
        merged.append(contentsOf: rows, positions: taken..<rows.count)
        if inKeyOrder && !keysAscend { merged.sortInKeyOrder() }
        return merged
    }
}
