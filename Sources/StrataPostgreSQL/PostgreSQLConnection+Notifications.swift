import CLibPQ

/// A notification a `NOTIFY` (or `pg_notify`) sent to a channel this connection listens on.
/// A value type, `Sendable`.
public struct PostgreSQLNotification: Sendable, Hashable {
    /// The channel's name, exactly as the sender gave it.
    public let channel: String
    /// The payload (empty when the sender gave none).
    public let payload: String
    /// The server process ID of the sending session (compare `serverProcessID` to skip one's own).
    public let senderProcessID: Int32

    /// A notification with these parts (for comparisons in tests).
    public init(channel: String, payload: String, senderProcessID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderProcessID = senderProcessID
    }
}

extension PostgreSQLConnection {
    /// Starts listening on `channel` (`LISTEN "channel"`: the name is quoted, so it is matched
    /// exactly, case included, as `notify(_:payload:)` and `pg_notify` send it). Inside a
    /// transaction, listening starts when it commits. Throws like `execute(_:parameters:)`.
    public func listen(_ channel: String) throws {
        try execute("LISTEN " + PostgreSQLIdentifier.quoted(channel))
    }

    /// Stops listening on `channel` (`UNLISTEN "channel"`).
    public func unlisten(_ channel: String) throws {
        try execute("UNLISTEN " + PostgreSQLIdentifier.quoted(channel))
    }

    /// Sends a notification to every session listening on `channel` (`SELECT pg_notify($1, $2)`).
    /// Inside a transaction it is delivered when the transaction commits, and not at all if it
    /// rolls back. PostgreSQL limits a payload to under 8000 bytes (22023 beyond).
    public func notify(_ channel: String, payload: String = "") throws {
        try execute("SELECT pg_notify($1, $2)", parameters: [.text(channel), .text(payload)])
    }

    /// Sends one notification per payload to `channel`, in order, with one statement (one round
    /// trip, however many payloads): what ``notify(_:payload:)`` does for each. Delivered as
    /// ``notify(_:payload:)``'s are; a payload of 8000 bytes or more fails the whole statement.
    /// Call it on the thread holding the connection; blocks until the server answers.
    public func notify(_ channel: String, payloads: [String]) throws {
        guard payloads.count > 1 else {
            if let payload = payloads.first { try notify(channel, payload: payload) }
            return
        }
        // Each payload is a parameter of its own (no array literal to escape it into).
        let list = (2...payloads.count + 1).map { "$\($0)::text" }.joined(separator: ", ")
        try execute(
            "SELECT pg_notify($1, m.payload) FROM unnest(ARRAY[\(list)]) WITH ORDINALITY AS m(payload, position) ORDER BY m.position",
            parameters: [.text(channel)] + payloads.map(PostgreSQLValue.text))
    }

    /// The notifications received on the channels this connection listens on: those already
    /// arrived, at once; else waits up to `timeout` for the next ones (`poll(2)` on libpq's
    /// socket, then `PQconsumeInput` and `PQnotifies`). Returns an empty array when none came in
    /// time; `.zero` only collects what has arrived.
    ///
    /// Throws `PostgreSQLError` with kind `connectionLost` when the connection broke (a listener
    /// should then `reset()` and `listen` again: notifications sent meanwhile are lost). Blocks
    /// the calling thread for at most `timeout`; use the connection from one thread at a time.
    public func notifications(timeout: Duration) throws -> [PostgreSQLNotification] {
        let deadline = ContinuousClock.now + timeout
        while true {
            guard isConnected, PQconsumeInput(handle) == 1 else {
                throw connectionError(activity: "waiting for notifications")
            }
            let received = queuedNotifications()
            if !received.isEmpty { return received }
            guard PostgreSQLSocketWait.wait(for: .read, on: PQsocket(handle), until: deadline) else { return [] }
        }
    }

    /// The notifications libpq has already read and queued (`PQnotifies`), oldest first.
    private func queuedNotifications() -> [PostgreSQLNotification] {
        var received: [PostgreSQLNotification] = []
        while let notify = PQnotifies(handle) {
            defer { PQfreemem(notify) }
            let entry = notify.pointee
            received.append(
                PostgreSQLNotification(
                    channel: entry.relname.map { String(cString: $0) } ?? "", payload: entry.extra.map { String(cString: $0) } ?? "",
                    senderProcessID: entry.be_pid))
        }
        return received
    }
}
