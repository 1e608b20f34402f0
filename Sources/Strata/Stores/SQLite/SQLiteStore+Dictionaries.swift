import Foundation
import StrataSQLite

/// Dictionary fetches as one SQL statement on a reader connection.
extension SQLiteStore {
    func fetchDictionaryRows(_ plan: DictionaryPlan, options: ReadOptions) throws -> [[RowEvaluator.Operand]] {
        let (sql, reads) = try DictionarySQLCompiler(schema: schema, plan: plan).compile()
        let fallback = plan.rows.entity
        // Columns of binary values may hold references to external binary data files.
        let mayHoldReferences = plan.columns.filter(\.isVisible).map { column in
            column.decoding.map(ExternalBinaryReference.mayHoldReferences) ?? (column.kind == .data || column.kind == .transformable)
        }
        do {
            return try pool.withReader(options) { connection in
                let statement = try connection.cachedStatement(sql.text)
                var rows: [[RowEvaluator.Operand]] = []
                var spaces = StoreIDSpaces(token: token)
                try statement.forEachRow(sql.bindings.sqliteValues) { row in
                    var values: [RowEvaluator.Operand] = []
                    values.reserveCapacity(reads.count)
                    for (position, read) in reads.enumerated() {
                        switch read {
                        case .value(let index):
                            let value = row.storedValue(at: index)
                            let resolves = position < mayHoldReferences.count && mayHoldReferences[position]
                            values.append(.value(resolves ? try resolvedValue(value) : value))
                        case .object(let key, let entityCode):
                            if row.isNull(at: key) {
                                values.append(.object(nil))
                            } else {
                                let entity = row.optionalInt64(at: entityCode).flatMap(model.entity(forCode:))
                                values.append(.object(spaces.id(entity ?? fallback, primaryKey: row.int64(at: key))))
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
