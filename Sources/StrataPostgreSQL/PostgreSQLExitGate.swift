import StrataLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps libpq's connection set-up and tear-down out of the way of the process's exit.
///
/// Opening a connection runs code of other libraries inside libpq: Kerberos (`gss_acquire_cred`,
/// looking for credentials for GSSAPI encryption, libpq's default `gssencmode=prefer`) and
/// OpenSSL (SCRAM's HMAC, TLS). When a process exits, the C library runs the libraries'
/// finalizers, which destroy Kerberos' locks; a thread still opening a connection then crashes
/// (an assertion in `k5_mutex_lock`, or a segmentation fault) instead of the process exiting.
/// A store opens connections on its own threads (its change listener reconnects after a server
/// restart; a fetch on a private queue opens a pooled connection), so a backend shutting down
/// at the wrong moment would crash.
///
/// Every such libpq call goes through ``pass(_:)``. At exit an `atexit` handler (which runs
/// before the finalizers) closes the gate: it waits for the calls inside to return (each is
/// short: Strata drives connections with the non-blocking `PQconnectPoll` and waits on the
/// socket outside libpq), at most ``exitWait``, and a thread arriving afterwards waits for the
/// process to end instead of entering libpq. The exiting thread itself always passes (an exit
/// handler of the app may still close a connection). OpenSSL's own exit-time cleanup is turned
/// off before the first connection (`PostgreSQLConnection+Connect.swift`). Thread-safe.
enum PostgreSQLExitGate {
    private struct State: Sendable {
        /// Calls inside libpq now.
        var inside = 0
        /// The thread running the exit handlers, once the process exits.
        var exitingThread: pthread_t?
    }

    /// The longest the exit waits for calls inside libpq to return.
    static let exitWait: Duration = .seconds(1)

    private static let state = StrataLock(State())

    /// The exit handler, registered once, before the first call passes.
    private static let exitHandlerRegistered: Bool = atexit { PostgreSQLExitGate.close() } == 0

    /// Runs `body`, a call into libpq that may run another library's code, unless the process is
    /// exiting: then the calling thread (other than the exiting one) waits for the end.
    static func pass<T>(_ body: () throws -> T) rethrows -> T {
        _ = exitHandlerRegistered
        let entered = state.withLock { state -> Bool in
            if let exiting = state.exitingThread, pthread_equal(exiting, pthread_self()) == 0 { return false }
            state.inside += 1
            return true
        }
        if !entered { waitForTheEnd() }
        defer { state.withLock { $0.inside -= 1 } }
        return try body()
    }

    /// The exit handler: closes the gate and waits (at most ``exitWait``) for the calls inside.
    private static func close() {
        state.withLock { $0.exitingThread = pthread_self() }
        let deadline = ContinuousClock.now + exitWait
        while state.withLock({ $0.inside }) > 0 && ContinuousClock.now < deadline {
            usleep(1_000)
        }
    }

    /// A thread that came to the gate after the process began to exit sleeps until it ends.
    private static func waitForTheEnd() -> Never {
        while true { sleep(60) }
    }
}
