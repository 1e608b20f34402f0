/// What reading rows of one entity from a SQLite store needs, found once when the store opens:
/// the entity, where its values are in a row, which attribute slots may hold external data
/// references, and the statements that read its table's rows by key. Immutable.
final class SQLiteEntityReadPlan: @unchecked Sendable {
    // @unchecked Sendable: immutable; the entity is frozen with its model.
    let entity: EntityDescription
    let columns: SQLiteSchema.EntityColumns
    /// The attribute slots that may hold external data references (empty for most entities).
    let referenceSlots: [Int]
    /// The entity's table.
    var table: String { columns.table }
    /// The table's rows in a closed key range, in key order (`FetchStatements.rowsInKeyRange`).
    let rowsInKeyRange: String?
    /// The table's rows in a key list (`FetchStatements.rowsByKeys`).
    let rowsByKeys: String?

    init(entity: EntityDescription, columns: SQLiteSchema.EntityColumns, referenceSlots: [Int], rowsInKeyRange: String?, rowsByKeys: String?) {
        self.entity = entity
        self.columns = columns
        self.referenceSlots = referenceSlots
        self.rowsInKeyRange = rowsInKeyRange
        self.rowsByKeys = rowsByKeys
    }
}

/// The read plans of a store's entities by entity code: every decoded row and every read by key
/// finds its plan by an index instead of hashing the entity, its table name and its SQL.
struct SQLiteReadPlans: Sendable {
    /// Indexed by code, for codes below 65,536 (Core Data numbers entities 1…n).
    private let byCode: ContiguousArray<SQLiteEntityReadPlan?>
    private let byLargeCode: [Int64: SQLiteEntityReadPlan]

    init(model: ManagedObjectModel, schema: SQLiteSchema, fetchSQL: FetchStatements, externalSQL: ExternalBinaryStatements) {
        var plans: [Int64: SQLiteEntityReadPlan] = [:]
        for entity in model.entities {
            guard let columns = schema.columns(for: entity) else { continue }
            plans[entity.layout.code] = SQLiteEntityReadPlan(
                entity: entity, columns: columns, referenceSlots: externalSQL.referenceSlots(of: entity),
                rowsInKeyRange: fetchSQL.rowsInKeyRange(inTable: columns.table), rowsByKeys: fetchSQL.rowsByKeys(inTable: columns.table))
        }
        let indexedCount = Int((plans.keys.filter { (0..<65_536).contains($0) }.max() ?? -1) + 1)
        var byCode = ContiguousArray<SQLiteEntityReadPlan?>(repeating: nil, count: indexedCount)
        var byLargeCode: [Int64: SQLiteEntityReadPlan] = [:]
        for (code, plan) in plans {
            if code >= 0 && code < indexedCount { byCode[Int(code)] = plan } else { byLargeCode[code] = plan }
        }
        self.byCode = byCode
        self.byLargeCode = byLargeCode
    }

    /// The plan of the entity with `code` (a row's `Z_ENT`); nil for a code no stored entity has.
    @inline(__always) func plan(forCode code: Int64) -> SQLiteEntityReadPlan? {
        if code >= 0 && code < byCode.count { return byCode[Int(code)] }
        return byLargeCode[code]
    }

    /// The plan of `entity`; nil when it is not one of this store's model's stored entities.
    @inline(__always) func plan(for entity: EntityDescription) -> SQLiteEntityReadPlan? {
        guard let plan = plan(forCode: entity.layout.code), plan.entity === entity else { return nil }
        return plan
    }
}
