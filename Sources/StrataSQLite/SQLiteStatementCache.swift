/// A bounded table of prepared statements keyed by their SQL text.
///
/// Eviction is least-recently-inserted, which is enough: Strata's statements are few and
/// generated from a small set of shapes, so the cache almost never fills.
///
/// Callers mostly pass the very same `String` again (text built once, when a store opens or a
/// plan shape is first compiled). Finding it in the table hashes the whole text (about a
/// hundred bytes: a measurable part of firing one fault), so a small direct-mapped table in
/// front is keyed by where the text is stored: a hit is confirmed with `==`, which returns at
/// once for two strings that share their storage. A miss, or a text stored elsewhere, falls
/// back to the hashed table, so the answer never depends on the address.
struct SQLiteStatementCache {
    private var statements: [String: SQLiteStatement] = [:]
    private var order: [String] = []
    /// The recently found statements, by `recentSlot(of:)` of their text.
    private var recent = ContiguousArray<RecentEntry?>(repeating: nil, count: Self.recentCount)
    let capacity: Int

    private struct RecentEntry {
        let sql: String
        let statement: SQLiteStatement
    }

    private static let recentCount = 32

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// The statement prepared for `sql`, if the cache holds one.
    mutating func statement(for sql: String) -> SQLiteStatement? {
        let slot = Self.recentSlot(of: sql)
        if let entry = recent[slot], entry.sql == sql { return entry.statement }
        guard let statement = statements[sql] else { return nil }
        recent[slot] = RecentEntry(sql: sql, statement: statement)
        return statement
    }

    mutating func insert(_ statement: SQLiteStatement, for sql: String) {
        var stale = false
        if statements.updateValue(statement, forKey: sql) == nil {
            order.append(sql)
        } else {
            stale = true  // replaced (the cached one was busy): the front table may hold it
        }
        while order.count > capacity {
            statements[order.removeFirst()] = nil
            stale = true
        }
        // The front table only serves what the table holds (both are rare: start it afresh).
        if stale { clearRecent() }
    }

    mutating func removeAll() {
        statements.removeAll()
        order.removeAll()
        clearRecent()
    }

    private mutating func clearRecent() {
        for slot in recent.indices { recent[slot] = nil }
    }

    /// The front-table slot of `sql`: from the address of its UTF-8 storage and its length
    /// (only a hint: a hit is checked with `==`).
    @inline(__always) private static func recentSlot(of sql: String) -> Int {
        let address = sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
        let mixed = (address >> 4) ^ (address >> 9) ^ UInt(truncatingIfNeeded: sql.utf8.count)
        return Int(truncatingIfNeeded: mixed % UInt(recentCount))
    }
}
