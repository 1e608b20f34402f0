import Foundation
import Strata
import StrataPostgreSQL
import StrataPostgreSQLStore

/// A PostgreSQL namespace (schema) of its own for one test, on the throwaway server that
/// `scripts/postgres-test-server.sh` starts and passes in `STRATA_TEST_POSTGRESQL_URL` (`make
/// test` and `.ci/run` do both). The namespace has a random name and is dropped (`DROP SCHEMA …
/// CASCADE`) when the value is released, so tests never see each other's tables.
///
/// Without the variable, ``init()`` throws ``ServerMissing``, whose message says how to start a
/// server, so a run without PostgreSQL never passes silently; `STRATA_SKIP_POSTGRESQL=1`
/// (``isSkipped``) tells suites to leave the PostgreSQL cases out instead.
///
/// Thread-safe (immutable); release it after the coordinators using it.
public final class PostgreSQLTestDatabase: Sendable {
    /// Whether the PostgreSQL tests are skipped (`STRATA_SKIP_POSTGRESQL=1`).
    public static let isSkipped = ProcessInfo.processInfo.environment["STRATA_SKIP_POSTGRESQL"] == "1"

    /// Why a test needing a server cannot run.
    public struct ServerMissing: Error, CustomStringConvertible {
        /// Creates the error.
        public init() {}
        /// How to give the tests a server.
        public var description: String {
            "STRATA_TEST_POSTGRESQL_URL is not set: these tests need a PostgreSQL server. `make test` starts a throwaway one; "
                + "or run `scripts/postgres-test-server.sh run swift test --skip-build --filter PostgreSQL`; "
                + "or set STRATA_SKIP_POSTGRESQL=1 to skip them."
        }
    }

    /// The server's URL (with the password of the `strata` role), or ``ServerMissing``.
    public static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_TEST_POSTGRESQL_URL"], !url.isEmpty else { throw ServerMissing() }
        return url
    }

    /// The server's URL as a `URL`, for `addPersistentStore(type: .postgreSQL, at:)`.
    public let url: URL
    /// The namespace's name (lowercase letters, digits and `_`).
    public let namespace: String

    /// A new namespace name on the server (nothing is created until a store is added with
    /// ``options``). Throws ``ServerMissing`` without a server URL.
    public init() throws {
        let text = try Self.serverURL()
        guard let url = URL(string: text) else { throw ServerMissing() }
        self.url = url
        self.namespace = "strata_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }

    /// Store options selecting this namespace, with a pool of at most 2 connections per store
    /// (the test server allows 100 connections, and many tests run at once).
    public var options: [String: any Sendable] { [PostgreSQLStoreOption.namespace: namespace, PostgreSQLStoreOption.maximumConnections: 2] }

    /// The server's URL with `application_name` set to `name`, so a test can find (and end)
    /// the sessions of the store it opens with it in `pg_stat_activity`.
    public func url(applicationName name: String) -> URL {
        URL(string: url.absoluteString + (url.query == nil ? "?" : "&") + "application_name=\(name)") ?? url
    }

    /// Adds a PostgreSQL store in this namespace to `coordinator`.
    @discardableResult
    public func addStore(to coordinator: PersistentStoreCoordinator, options extra: [String: any Sendable] = [:]) throws -> PersistentStore {
        try coordinator.addPersistentStore(type: .postgreSQL, at: url, options: options.merging(extra) { _, new in new })
    }

    /// A new connection to the server, for checks that look at the tables directly.
    public func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(url: url.absoluteString)
    }

    /// Drops the namespace. A lock held elsewhere (a pinned query generation still alive) makes
    /// it give up after 5 s rather than wait forever; the throwaway server is removed anyway.
    deinit {
        if let connection = try? connect() {
            _ = try? connection.execute("SET lock_timeout = '5s'")
            _ = try? connection.execute("DROP SCHEMA IF EXISTS \(namespace) CASCADE")
        }
    }
}
