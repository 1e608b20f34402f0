/// The statements one connection prepared for ``PostgreSQLConnection/executeCached(_:parameters:)``:
/// the server's name of each, by SQL text and parameter types, at most ``capacity`` of them; the
/// one used longest ago makes room for a new one.
///
/// Belongs to one connection and, through ``session``, to one server session of it: a
/// connection's `reset()` starts a session without the statements, and the cache is emptied
/// when it sees that. Not thread-safe: used by whoever holds the connection.
struct PostgreSQLStatementCache {
    /// What a cached statement was prepared for: its text, and the type each parameter was sent
    /// as (`0` where the server infers it), so that a cached statement types its parameters as
    /// `execute(_:parameters:)` would.
    struct Key: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// The most statements kept on the server per connection.
    static let capacity = 100

    /// The session the statements belong to.
    private(set) var session: Int
    /// The server's name of each statement, and when it was last used (a counter).
    private var entries: [Key: (name: String, lastUse: UInt64)] = [:]
    /// The counter of uses.
    private var clock: UInt64 = 0

    init(session: Int) { self.session = session }

    /// Forgets every statement when `current` is not the session they were prepared in.
    mutating func adopt(session current: Int) {
        guard current != session else { return }
        entries.removeAll()
        session = current
    }

    /// The name of the statement prepared for `key`, marked as just used; nil when none is.
    mutating func name(for key: Key) -> String? {
        guard let name = entries[key]?.name else { return nil }
        clock &+= 1
        entries[key]?.lastUse = clock
        return name
    }

    /// Records that `name` was prepared for `key`.
    mutating func insert(_ name: String, for key: Key) {
        clock &+= 1
        entries[key] = (name, clock)
    }

    /// Forgets the statement of `key` (the server no longer has it, or it is being dropped).
    mutating func remove(_ key: Key) {
        entries[key] = nil
    }

    /// The statement used longest ago, when the cache is full; nil while there is room.
    func leastRecentlyUsed() -> (key: Key, name: String)? {
        guard entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
        return (oldest.key, oldest.value.name)
    }
}
