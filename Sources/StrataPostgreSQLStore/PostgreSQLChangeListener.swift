import Foundation
import StrataPostgreSQL
import Synchronization

/// Listens on a channel of a PostgreSQL database for the change messages other coordinators'
/// commits send (``PostgreSQLChangeMessage``), on a connection and a thread of its own, and
/// hands each message that another store instance sent to `handler` on that thread.
///
/// It waits on the connection's socket (no polling query): a message arrives within
/// milliseconds of the commit. When the connection breaks (a server restart, a terminated
/// session) it reconnects, waiting longer after each failure (up to two seconds), listens
/// again, and calls `resumed` (messages sent while it was away are lost: a store that tracks
/// history then reads what it missed from the history, PostgreSQLStore+History.swift). ``stop()`` ends it within ``waitSlice``. Thread-safe.
final class PostgreSQLChangeListener: @unchecked Sendable {
    // @unchecked Sendable: the connection is used only by the listener's thread once `init`
    // returns; `stopped` is atomic.
    /// The longest the thread waits on the socket before it checks whether it should stop.
    static let waitSlice: Duration = .milliseconds(200)

    private let stopped = StopFlag()

    /// Connects and starts listening on `channel` before it returns (so a commit made after
    /// `init` is seen), then starts the thread. Throws what connecting or `LISTEN` throws.
    init(
        configuration: PostgreSQLConfiguration, channel: String, origin: String,
        handler: @escaping @Sendable (PostgreSQLChangeMessage) -> Void, resumed: @escaping @Sendable () -> Void
    ) throws {
        let connection = try PostgreSQLConnection(configuration: configuration)
        try connection.listen(channel)
        let box = ConnectionBox(connection)
        let stopped = self.stopped
        let thread = Thread {
            Self.run(box.connection, channel: channel, origin: origin, stopped: stopped, handler: handler, resumed: resumed)
        }
        thread.name = "org.strata.postgresql.listener"
        thread.start()
    }

    deinit { stop() }

    /// Ends listening: the thread stops and closes its connection within ``waitSlice``. Callable
    /// from any thread, more than once.
    func stop() {
        stopped.value.store(true, ordering: .releasing)
    }

    private static func run(
        _ connection: PostgreSQLConnection, channel: String, origin: String, stopped: StopFlag,
        handler: @Sendable (PostgreSQLChangeMessage) -> Void, resumed: @Sendable () -> Void
    ) {
        var backoff: Duration = .milliseconds(50)
        while !stopped.value.load(ordering: .acquiring) {
            do {
                for notification in try connection.notifications(timeout: waitSlice) where notification.channel == channel {
                    guard let message = PostgreSQLChangeMessage.decode(notification.payload), message.origin != origin else { continue }
                    handler(message)
                }
                backoff = .milliseconds(50)
            } catch {
                // The connection broke: reconnect and listen again, waiting longer each time.
                Thread.sleep(forTimeInterval: Double(backoff.components.attoseconds) / 1e18 + Double(backoff.components.seconds))
                backoff = min(backoff * 2, .seconds(2))
                guard !stopped.value.load(ordering: .acquiring) else { return }
                do {
                    try connection.reset()
                    try connection.listen(channel)
                    resumed()
                } catch {
                    continue
                }
            }
        }
    }
}

/// Hands a connection to the listener's thread (which is then its only user).
private final class ConnectionBox: @unchecked Sendable {
    // @unchecked Sendable: handed over once; used by one thread afterwards.
    let connection: PostgreSQLConnection
    init(_ connection: PostgreSQLConnection) { self.connection = connection }
}

/// The listener's "stop now" flag, shared with its thread.
private final class StopFlag: Sendable {
    let value = Atomic(false)
}
