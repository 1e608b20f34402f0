import Foundation
import StrataLocks

/// A bounded pool of connections to one server, usable from any thread.
///
/// `withConnection(_:)` lends a connection to one caller at a time. Connections are opened on
/// demand, up to `maximumConnections`; when all are lent, a caller waits until one comes back, for
/// at most `checkoutTimeout`, then gets `PostgreSQLError.Kind.poolTimeout` (it never waits
/// forever). A connection coming back is checked: an open transaction is rolled back, and a broken
/// connection is closed and its place freed. An idle connection is checked again when lent
/// (`checkConnection()`, no round trip), so one the server ended meanwhile (restart,
/// `pg_terminate_backend`) is replaced by a new one instead of failing the caller's first
/// statement. Session state other than transactions (`SET`, `LISTEN`, temporary tables) stays with
/// the connection: a listener should own a connection of its own.
public final class PostgreSQLConnectionPool: Sendable {
    /// A connection in the idle list. @unchecked Sendable: a connection is in the list only while
    /// no caller holds it, and leaves it for exactly one caller (taken under `state`'s lock), so
    /// it is used by one thread at a time, as libpq requires.
    private struct Idle: @unchecked Sendable {
        let connection: PostgreSQLConnection
    }

    private struct Waiter: Sendable {
        let id: Int
        let semaphore: DispatchSemaphore
    }

    private struct State: Sendable {
        var idle: [Idle] = []
        /// Connections open or being opened, lent or idle: never above `maximumConnections`.
        var open = 0
        /// Callers waiting for a connection, first come first woken.
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        var closed = false
        var opened = 0

        mutating func wakeOneWaiter() {
            if !waiters.isEmpty { waiters.removeFirst().semaphore.signal() }
        }
    }

    /// What a checkout does once it has looked at the pool.
    private enum Step: Sendable {
        case use(Idle)
        case open
        case wait(Waiter)
        case timedOut(lent: Int)
        case closed
    }

    /// Where the connections go.
    public let configuration: PostgreSQLConfiguration
    /// The most connections open at once (at least 1).
    public let maximumConnections: Int
    /// How long a caller waits for a connection when all are lent.
    public let checkoutTimeout: Duration
    private let state = StrataLock(State())

    /// A pool of at most `maximumConnections` connections to `configuration`'s server. Opens
    /// nothing yet.
    public init(configuration: PostgreSQLConfiguration, maximumConnections: Int, checkoutTimeout: Duration = .seconds(5)) {
        self.configuration = configuration
        self.maximumConnections = max(1, maximumConnections)
        self.checkoutTimeout = checkoutTimeout
    }

    /// Runs `body` with a connection lent to this caller alone, on the calling thread, and takes
    /// it back when `body` returns or throws. The connection must not escape `body`.
    ///
    /// Throws `PostgreSQLError`: `poolTimeout` when no connection came free within
    /// `checkoutTimeout`, `poolClosed` after `close()`, an opening error (`connectionFailed`,
    /// `connectTimeout`) when a new connection was needed and could not be opened, or what `body`
    /// throws. Blocks while waiting; callable from any thread, also from inside another
    /// `withConnection` (which then holds two connections).
    public func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        let value: T
        do {
            value = try body(connection)
        } catch {
            checkIn(connection)
            throw error
        }
        checkIn(connection)
        return value
    }

    private func checkOut() throws -> PostgreSQLConnection {
        let deadline = ContinuousClock.now + checkoutTimeout
        while true {
            let mayWait = ContinuousClock.now < deadline
            let step = state.withLock { state -> Step in
                if state.closed { return .closed }
                if let idle = state.idle.popLast() { return .use(idle) }
                if state.open < maximumConnections {
                    state.open += 1
                    return .open
                }
                guard mayWait else { return .timedOut(lent: state.open) }
                let waiter = Waiter(id: state.nextWaiterID, semaphore: DispatchSemaphore(value: 0))
                state.nextWaiterID += 1
                state.waiters.append(waiter)
                return .wait(waiter)
            }
            switch step {
            case .closed:
                throw PostgreSQLError(kind: .poolClosed, message: "the connection pool was closed", activity: "checking out a connection to \(configuration)")
            case .use(let idle):
                if idle.connection.checkConnection() { return idle.connection }
                // The server ended it while it was idle: open a replacement in its place.
                return try openReplacingSlot()
            case .open:
                return try openReplacingSlot()
            case .timedOut(let lent):
                throw PostgreSQLError(
                    kind: .poolTimeout, message: "no connection came free within \(checkoutTimeout) (all \(lent) of at most \(maximumConnections) are in use)",
                    activity: "checking out a connection to \(configuration)")
            case .wait(let waiter):
                // Then look again: a connection came back, or the deadline passed and the next
                // turn takes a free one or throws.
                let remaining = ContinuousClock.now.duration(to: deadline)
                if waiter.semaphore.wait(timeout: .now() + Self.dispatchInterval(remaining)) == .timedOut {
                    state.withLock { state in
                        if let index = state.waiters.firstIndex(where: { $0.id == waiter.id }) {
                            state.waiters.remove(at: index)
                        } else {
                            // A check-in woke this waiter just as it timed out: pass the wake-up on.
                            state.wakeOneWaiter()
                        }
                    }
                }
            }
        }
    }

    /// Opens a connection for a place already counted in `open`; frees the place if it fails.
    private func openReplacingSlot() throws -> PostgreSQLConnection {
        do {
            let connection = try PostgreSQLConnection(configuration: configuration)
            state.withLock { $0.opened += 1 }
            return connection
        } catch {
            state.withLock { state in
                state.open -= 1
                state.wakeOneWaiter()
            }
            throw error
        }
    }

    private func checkIn(_ connection: PostgreSQLConnection) {
        if connection.transactionStatus != .idle { connection.rollbackIgnoringErrors() }
        let reusable = connection.isConnected && connection.transactionStatus == .idle
        let idle = Idle(connection: connection)
        state.withLock { state in
            if reusable && !state.closed {
                state.idle.append(idle)
            } else {
                state.open -= 1
            }
            state.wakeOneWaiter()
        }
    }

    /// Closes the idle connections and refuses new checkouts (`poolClosed`, also to callers
    /// waiting now); connections lent now are closed when they come back. Callable from any thread.
    public func close() {
        let closing = state.withLock { state -> [Idle] in
            state.closed = true
            let idle = state.idle
            state.open -= idle.count
            state.idle.removeAll()
            for waiter in state.waiters { waiter.semaphore.signal() }
            state.waiters.removeAll()
            return idle
        }
        _ = closing  // released here, outside the lock
    }

    /// Connections open now, lent or idle (for tests and diagnostics; changes as soon as it is read).
    public var openConnections: Int { state.withLock { $0.open } }
    /// Connections open and not lent now.
    public var idleConnections: Int { state.withLock { $0.idle.count } }
    /// Connections this pool has opened since it was made, replacements included.
    public var connectionsOpened: Int { state.withLock { $0.opened } }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return .nanoseconds(0) }
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .seconds(Int(clamping: seconds)) }
        return .nanoseconds(Int(clamping: max(0, nanoseconds.partialValue + attoseconds / 1_000_000_000)))
    }
}
