import Foundation
import StrataSQLite

/// Dictionary fetches as one SQL statement on a reader connection.
extension SQLiteStore {
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        let (sql, reads) = try DictionarySQLCompiler(schema: schema, plan: plan).compile()
        let fallback = plan.rows.entity
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var rows: [[RowEvaluator.Operand]] = []
                try statement.forEachRow(sql.bindings.sqliteValues) { row in
                    var values: [RowEvaluator.Operand] = []
                    values.reserveCapacity(reads.count)
                    for read in reads {
                        switch read {
                        case .value(let index):
                            values.append(.value(row.storedValue(at: index)))
                        case .object(let key, let entityCode):
                            if row.isNull(at: key) {
                                values.append(.object(nil))
                            } else {
                                let entity = row.isNull(at: entityCode) ? nil : model.entity(forCode: row.int64(at: entityCode))
                                values.append(.object(ManagedObjectID(entity: entity ?? fallback, primaryKey: row.int64(at: key), store: token)))
                            }
                        }
                    }
                    rows.append(values)
                }
                return rows
            }
        } catch {
            throw wrap(error, "Fetching \(plan.rows.entity.name) dictionaries")
        }
    }
}
