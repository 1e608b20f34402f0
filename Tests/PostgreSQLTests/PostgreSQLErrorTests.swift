import Foundation
import StrataPostgreSQL
import Testing

/// Errors: the server's SQLSTATE and messages, failures to connect within the timeout, and no
/// password in any text.
@Suite("PostgreSQL errors", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLErrorTests {
    /// A statement the parser rejects fails with SQLSTATE 42601 (syntax_error) and the message
    /// `syntax error at or near "…"` (`PG_DIAG_SQLSTATE`, `PG_DIAG_MESSAGE_PRIMARY`); outside a
    /// transaction block the connection stays usable.
    @Test func syntaxErrorCarriesSQLStateAndServerMessage() throws {
        let connection = try PostgreSQLTestServer.connect()
        let error = try #require(#expect(throws: PostgreSQLError.self) { try connection.execute("SELEC 1") })
        #expect(error.kind == .statement)
        #expect(error.sqlState == "42601")
        #expect(error.message == "syntax error at or near \"SELEC\"")
        #expect(error.sql == "SELEC 1")
        #expect(error.description.contains("42601 (syntax_error): syntax error at or near \"SELEC\""))
        #expect(connection.isConnected)
        #expect(try connection.execute("SELECT 1").count == 1)
    }

    /// A duplicate key fails with 23505 (unique_violation), the constraint's name
    /// (`PG_DIAG_CONSTRAINT_NAME`) and the detail `Key (…)=(…) already exists.`
    @Test func uniqueViolationIs23505() throws {
        let connection = try PostgreSQLTestServer.connect()
        let table = PostgreSQLTestServer.uniqueTableName("unique")
        try connection.execute("CREATE TEMP TABLE \(table) (id int8 PRIMARY KEY, email text UNIQUE)")
        try connection.execute("INSERT INTO \(table) VALUES (1, 'a@example.org')")
        let error = try #require(
            #expect(throws: PostgreSQLError.self) { try connection.execute("INSERT INTO \(table) VALUES ($1, $2)", parameters: [2, "a@example.org"]) })
        #expect(error.sqlState == PostgreSQLError.SQLState.uniqueViolation)
        #expect(error.isUniqueViolation)
        #expect(error.constraintName == "\(table)_email_key")
        #expect(error.detail == "Key (email)=(a@example.org) already exists.")
        #expect(try connection.execute("SELECT count(*) FROM \(table)").first?.int64(0) == 1)
    }

    /// A wrong password fails authentication with FATAL 28P01 (invalid_password), which libpq
    /// reports only in its message (verbose mode gives the code); neither the wrong password nor
    /// the right one appears in any text of the error or of the configuration.
    @Test func wrongPasswordIs28P01WithoutThePassword() throws {
        let wrongPassword = "Wrong-\(UUID().uuidString)"
        let url = try PostgreSQLTestServer.url(withPassword: wrongPassword)
        let realPassword = try PostgreSQLTestServer.password()
        let error = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(url: url) })
        #expect(error.kind == .connectionFailed)
        #expect(error.sqlState == PostgreSQLError.SQLState.invalidPassword)
        #expect(error.message == "password authentication failed for user \"strata\"")
        #expect(error.activity.contains("postgresql://strata:***@127.0.0.1:"))
        let configuration = try PostgreSQLConfiguration(url: url)
        var dumped = ""
        dump(error, to: &dumped)
        dump(configuration, to: &dumped)
        let texts = [
            error.description, error.debugDescription, error.localizedDescription, String(describing: error), String(reflecting: error), dumped,
            error.message, error.activity, configuration.description, configuration.debugDescription, String(reflecting: configuration),
            configuration.redactedURL, "\(error.detail ?? "")\(error.hint ?? "")",
        ]
        for text in texts {
            #expect(!text.contains(wrongPassword), "the wrong password shows in: \(text)")
            #expect(!text.contains(realPassword), "the real password shows in: \(text)")
        }
    }

    /// A port where nothing listens refuses the TCP connection at once (libpq: "Connection
    /// refused"): the error is `connectionFailed`, with no SQLSTATE (the server never answered).
    @Test func refusedPortFailsAtOnce() throws {
        let url = PostgreSQLTestServer.url(port: try SilentListener.closedPort())
        let started = ContinuousClock.now
        let error = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(url: url) })
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(error.kind == .connectionFailed)
        #expect(error.sqlState == nil)
        #expect(error.message.contains("refused"))
        #expect(!error.message.contains("\t") && !error.message.contains("  ") && !error.message.contains("\n"))
        #expect(!error.description.contains("not-the-password"))
    }

    /// A server that accepts the TCP connection and never answers would block libpq for ever
    /// without `connect_timeout`; Strata keeps its own deadline (libpq applies `connect_timeout`
    /// only in its blocking calls), so the connection fails within the timeout — here the URL's
    /// 2 seconds — and within 10 s in any case.
    @Test func silentServerFailsWithinTheConnectTimeout() throws {
        let listener = try SilentListener()
        let started = ContinuousClock.now
        let error = try #require(
            #expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(url: PostgreSQLTestServer.url(port: listener.port, connectTimeout: 2)) })
        let elapsed = ContinuousClock.now - started
        #expect(error.kind == .connectTimeout)
        #expect(elapsed >= .seconds(1.9))
        #expect(elapsed < .seconds(10))
        // Without connect_timeout in the URL, the configuration's default applies.
        let quick = try PostgreSQLConfiguration(url: PostgreSQLTestServer.url(port: listener.port), defaultConnectTimeout: .milliseconds(500))
        let quickStart = ContinuousClock.now
        let quickError = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(configuration: quick) })
        #expect(quickError.kind == .connectTimeout)
        #expect(ContinuousClock.now - quickStart < .seconds(5))
    }

    /// A database that does not exist is refused with FATAL 3D000 (invalid_catalog_name).
    @Test func missingDatabaseIs3D000() throws {
        let url = try PostgreSQLTestServer.url().replacingOccurrences(of: "/strata_test", with: "/no_such_database")
        let error = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(url: url) })
        #expect(error.sqlState == PostgreSQLError.SQLState.invalidCatalogName)
        #expect(error.message == "database \"no_such_database\" does not exist")
    }
}

/// Reading connection URLs and hiding their passwords (no server).
@Suite("PostgreSQL connection URLs")
struct PostgreSQLURLTests {
    /// libpq takes the password from `user:password@` and from the `password` query parameter
    /// (libpq's "Connection URIs"); both are hidden, and `connect_timeout` is read.
    @Test func passwordsAreRedacted() throws {
        let plain = try PostgreSQLConfiguration(url: "postgresql://ann:s3cret@db.example.org:5433/app?sslmode=disable")
        #expect(plain.redactedURL == "postgresql://ann:***@db.example.org:5433/app?sslmode=disable")
        #expect(plain.connectTimeout == PostgreSQLConfiguration.standardConnectTimeout)
        let query = try PostgreSQLConfiguration(url: "postgres://ann@[::1]:5432/app?password=hunter22&connect_timeout=3")
        #expect(query.redactedURL == "postgres://ann@[::1]:5432/app?password=***&connect_timeout=3")
        #expect(query.connectTimeout == .seconds(3))
        let encoded = try PostgreSQLConfiguration(url: "postgresql://ann:p%40ss%3Aword@host/app")
        #expect(encoded.redactedURL == "postgresql://ann:***@host/app")
        #expect(!String(reflecting: encoded).contains("p%40ss"))
        let noPassword = try PostgreSQLConfiguration(url: "postgresql://host")
        #expect(noPassword.redactedURL == "postgresql://host")
        // libpq treats connect_timeout 1 as 2 seconds and 0 as "for ever": Strata never waits for ever.
        #expect(try PostgreSQLConfiguration(url: "postgresql://h/d?connect_timeout=1").connectTimeout == .seconds(2))
        #expect(try PostgreSQLConfiguration(url: "postgresql://h/d?connect_timeout=0").connectTimeout == PostgreSQLConfiguration.standardConnectTimeout)
    }

    /// Only `postgresql://` and `postgres://` URLs are taken, and the refusal does not repeat the
    /// text (a key=value connection string may hold a password).
    @Test func otherStringsAreRefusedWithoutRepeatingThem() throws {
        for text in ["host=localhost password=topsecret", "mysql://u:topsecret@h/d", "postgresql://u:topsecret@h/d\u{0}"] {
            let error = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConfiguration(url: text) })
            #expect(error.kind == .invalidURL)
            #expect(!error.description.contains("topsecret"))
        }
    }

    /// libpq repeats a badly percent-encoded URL token in its message (`invalid percent-encoded
    /// token: "%zz…"`); the connection scrubs the password from it.
    @Test func libpqMessagesAreScrubbed() throws {
        let password = "%zzTopSecretValue"
        let error = try #require(#expect(throws: PostgreSQLError.self) { try PostgreSQLConnection(url: "postgresql://ann:\(password)@127.0.0.1:1/app") })
        #expect(error.kind == .connectionFailed)
        #expect(error.message.contains("invalid percent-encoded token"))
        #expect(!error.description.contains("TopSecretValue"))
    }
}
