import Foundation

/// The parts of a `postgresql://` URL that Strata needs before libpq reads it: the form with the
/// password hidden, the password itself (to scrub it from messages) and `connect_timeout`.
///
/// libpq does the real parsing when it connects; this only has to find the password in the two
/// places libpq takes it from (`user:password@` and the `password` query parameter) and must not
/// fail on URLs libpq accepts. A value type: usable from any thread.
struct PostgreSQLURLParts {
    /// The URL with each password replaced by `***`.
    let redacted: String
    /// The passwords found, as written in the URL and percent-decoded (empty strings left out).
    let secrets: [String]
    /// The `connect_timeout` query parameter, when present and an integer.
    let connectTimeoutSeconds: Int?

    /// Splits `url`; nil when it is not a `postgresql://` or `postgres://` URL or holds a NUL.
    init?(_ url: String) {
        guard !url.contains("\0") else { return nil }
        let scheme: String
        if url.hasPrefix("postgresql://") {
            scheme = "postgresql://"
        } else if url.hasPrefix("postgres://") {
            scheme = "postgres://"
        } else {
            return nil
        }
        let rest = url.dropFirst(scheme.count)
        // The authority ends at the first "/" or "?" (a bracketed IPv6 host holds neither).
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = rest[authorityEnd...]
        var secrets: [String] = []
        var redactedAuthority = String(authority)
        // The last "@" ends the user information (an "@" in a password must be percent-encoded,
        // but hiding too much is the safe side).
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                let password = String(userInfo[userInfo.index(after: colon)...])
                secrets.append(password)
                redactedAuthority = String(userInfo[..<colon]) + ":***" + String(authority[at...])
            }
        }
        var connectTimeout: Int?
        if let question = tail.firstIndex(of: "?") {
            let path = tail[..<question]
            let query = tail[tail.index(after: question)...]
            var pairs: [String] = []
            for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
                let key = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                let value = pair.firstIndex(of: "=").map { String(pair[pair.index(after: $0)...]) } ?? ""
                switch key {
                case "password":
                    secrets.append(value)
                    pairs.append("password=***")
                case "connect_timeout":
                    connectTimeout = Int(value)
                    pairs.append(String(pair))
                default:
                    pairs.append(String(pair))
                }
            }
            tail = Substring(String(path) + "?" + pairs.joined(separator: "&"))
        }
        var allSecrets: [String] = []
        for secret in secrets where !secret.isEmpty {
            allSecrets.append(secret)
            if let decoded = secret.removingPercentEncoding, decoded != secret, !decoded.isEmpty { allSecrets.append(decoded) }
        }
        self.redacted = scheme + redactedAuthority + tail
        // Longest first, so scrubbing a password never leaves the tail of a longer one.
        self.secrets = allSecrets.sorted { $0.count > $1.count }
        self.connectTimeoutSeconds = connectTimeout
    }
}
