import Foundation

/// Where and how to connect: a `postgresql://` (or `postgres://`) URL and the connect timeout.
///
/// The URL is the one libpq documents as a connection URI,
/// `postgresql://user[:password]@host[:port]/database[?key=value&…]`; every libpq parameter may be
/// given in its query (`sslmode`, `application_name`, `options`, …). The password, wherever it is
/// (after the user name or as `password=` in the query), is never shown: `description`,
/// `debugDescription`, the mirror `dump` prints and every error use ``redactedURL``.
///
/// A value type, `Sendable`: usable from any thread.
public struct PostgreSQLConfiguration: Sendable {
    /// The URL as given, password included. Only the connection code reads it.
    let url: String
    /// The URL with any password replaced by `***`: the form that errors and logs show.
    public let redactedURL: String
    /// How long opening (or resetting) a connection may take before it fails with
    /// `PostgreSQLError.Kind.connectTimeout`: the URL's `connect_timeout` (seconds) when it gives
    /// a positive one, else the `defaultConnectTimeout` of the initializer.
    public let connectTimeout: Duration
    /// Whether the URL gives `connect_timeout` itself (else Strata adds it for libpq).
    let urlHasConnectTimeout: Bool
    /// The password in the URL, percent-encoded as written and decoded, to scrub from any text an
    /// error carries (libpq echoes a badly percent-encoded URL token in its message).
    let secrets: [String]

    /// Strata's connect timeout when the URL gives none: 5 seconds.
    public static let standardConnectTimeout: Duration = .seconds(5)

    /// Reads a connection URL. Throws `PostgreSQLError.Kind.invalidURL` when `url` does not start
    /// with `postgresql://` or `postgres://` or contains a NUL character (the error does not
    /// repeat the text, which may hold a password). Host names are not resolved here.
    public init(url: String, defaultConnectTimeout: Duration = PostgreSQLConfiguration.standardConnectTimeout) throws {
        guard let parts = PostgreSQLURLParts(url) else {
            throw PostgreSQLError(
                kind: .invalidURL, message: "not a connection URL: it must start with postgresql:// or postgres:// and contain no NUL character",
                activity: "reading a connection URL")
        }
        self.url = url
        self.redactedURL = parts.redacted
        self.secrets = parts.secrets
        if let seconds = parts.connectTimeoutSeconds {
            urlHasConnectTimeout = true
            // libpq treats 0 or less as "wait forever" and 1 as 2 seconds; Strata never waits forever.
            connectTimeout = seconds > 0 ? .seconds(max(seconds, 2)) : defaultConnectTimeout
        } else {
            urlHasConnectTimeout = false
            connectTimeout = defaultConnectTimeout
        }
    }

    /// `text` with every occurrence of the URL's password replaced by `***`.
    func scrub(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }
}

extension PostgreSQLConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The redacted URL.
    public var description: String { redactedURL }
    /// The redacted URL and the connect timeout.
    public var debugDescription: String { "PostgreSQLConfiguration(\(redactedURL), connectTimeout: \(connectTimeout))" }
    /// Only the redacted URL and the timeout, so `dump` and debuggers never print the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["redactedURL": redactedURL, "connectTimeout": connectTimeout], displayStyle: .struct)
    }
}
