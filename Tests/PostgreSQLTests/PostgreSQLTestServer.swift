import Foundation
import StrataPostgreSQL
import StrataTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The throwaway server the tests run against: `scripts/postgres-test-server.sh` starts it and
/// passes its URL in `STRATA_TEST_POSTGRESQL_URL` (`make test` and `.ci/run` do both).
///
/// Without the variable the tests that need a server fail with `ServerMissing`'s message, so
/// a run without a server never passes silently; `STRATA_SKIP_POSTGRESQL=1` skips them instead.
enum PostgreSQLTestServer {
    /// Whether the PostgreSQL suites are skipped (`STRATA_SKIP_POSTGRESQL=1`).
    static var isSkipped: Bool { PostgreSQLTestDatabase.isSkipped }

    /// Why a test needing a server cannot run (shared with the store tests).
    typealias ServerMissing = PostgreSQLTestDatabase.ServerMissing

    /// The server's URL (with the password of the `strata` role).
    static func url() throws -> String { try PostgreSQLTestDatabase.serverURL() }

    /// A new connection to the server.
    static func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection(url: url())
    }

    /// The server URL's password (between `user:` and `@`).
    static func password() throws -> String {
        let url = try url()
        guard let scheme = url.range(of: "://"), let at = url.range(of: "@", options: .backwards),
            let colon = url[scheme.upperBound..<at.lowerBound].firstIndex(of: ":")
        else { throw ServerMissing() }
        return String(url[url.index(after: colon)..<at.lowerBound])
    }

    /// The server URL with another password.
    static func url(withPassword newPassword: String) throws -> String {
        let url = try url()
        let old = try password()
        return url.replacingOccurrences(of: ":\(old)@", with: ":\(newPassword)@")
    }

    /// The server URL with another port and `connect_timeout`, keeping user and database.
    static func url(port: Int, connectTimeout: Int? = nil) -> String {
        "postgresql://strata:not-the-password@127.0.0.1:\(port)/strata_test" + (connectTimeout.map { "?connect_timeout=\($0)" } ?? "")
    }

    /// A table name no other test uses.
    static func uniqueTableName(_ prefix: String) -> String {
        "\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Ends the server process of `processID` from a separate connection and waits (up to 5 s) until
    /// it has exited (`pg_terminate_backend(pid, timeout)`, PostgreSQL 14 and later).
    static func terminate(processID: Int32) throws {
        let admin = try connect()
        let result = try admin.execute("SELECT pg_terminate_backend($1::integer, 5000)", parameters: [.int64(Int64(processID))])
        #expect(try result.first?.bool(0) == true)
    }
}

/// A TCP socket on 127.0.0.1 that accepts connections (the kernel completes the handshake for
/// the backlog) but never answers: a server that hangs.
final class SilentListener {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        guard bound == 0, named == 0, listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw SocketError()
        }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    struct SocketError: Error {}

    /// A port nothing listens on: bound, then closed.
    static func closedPort() throws -> Int {
        let listener = try SilentListener()
        return listener.port
    }
}
