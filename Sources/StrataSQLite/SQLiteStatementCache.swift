/// A bounded table of prepared statements keyed by their SQL text.
///
/// Eviction is least-recently-inserted, which is enough: Strata's statements are few and
/// generated from a small set of shapes, so the cache almost never fills.
struct SQLiteStatementCache {
    private var statements: [String: SQLiteStatement] = [:]
    private var order: [String] = []
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func statement(for sql: String) -> SQLiteStatement? { statements[sql] }

    mutating func insert(_ statement: SQLiteStatement, for sql: String) {
        if statements.updateValue(statement, forKey: sql) == nil {
            order.append(sql)
        }
        while order.count > capacity {
            let evicted = order.removeFirst()
            statements[evicted] = nil
        }
    }

    mutating func removeAll() {
        statements.removeAll()
        order.removeAll()
    }
}
