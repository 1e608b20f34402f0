/// The parts of an error text libpq builds in verbose mode (`PQERRORS_VERBOSE`), used where libpq
/// gives no result to read fields from (a refused connection, a lost one):
///
///     connection to server at "127.0.0.1", port 5432 failed: FATAL:  28P01: password authentication failed for user "ann"
///     DETAIL:  …
///     HINT:  …
///     LOCATION:  auth_failed, auth.c:334
///
/// The last `ERROR:`/`FATAL:`/`PANIC:` line gives the SQLSTATE and the server's message; without
/// one (libpq's own failures: "Connection refused", "server closed the connection
/// unexpectedly"), the message is the text without its LOCATION line. A value type.
struct PostgreSQLServerMessage {
    /// The SQLSTATE in the text, if the server sent one.
    private(set) var sqlState: String?
    /// The server's primary message, or libpq's whole message when the server sent none.
    private(set) var message: String
    /// The `DETAIL:` line, if any.
    private(set) var detail: String?
    /// The `HINT:` line, if any.
    private(set) var hint: String?

    init(_ text: String) {
        var lines: [String] = []
        message = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let value = Self.value(of: "DETAIL:  ", in: line) {
                detail = value
            } else if let value = Self.value(of: "HINT:  ", in: line) {
                hint = value
            } else if Self.value(of: "LOCATION:  ", in: line) != nil {
                continue
            } else {
                lines.append(String(line))
                for severity in ["FATAL:  ", "ERROR:  ", "PANIC:  "] {
                    guard let range = line.range(of: severity) else { continue }
                    let rest = line[range.upperBound...]
                    let code = rest.prefix(5)
                    if code.count == 5, code.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isUppercase) }), rest.dropFirst(5).hasPrefix(": ") {
                        sqlState = String(code)
                        message = String(rest.dropFirst(7))
                    } else {
                        message = String(rest)
                    }
                }
            }
        }
        if message.isEmpty {
            message = lines.map { $0.trimmingBlanks() }.filter { !$0.isEmpty }.joined(separator: " ")
        }
    }

    private static func value(of prefix: String, in line: Substring) -> String? {
        line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate func trimmingBlanks() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
