import Foundation

/// What one commit of a PostgreSQL store changed, as a `NOTIFY` payload that the other
/// coordinators on the same database read (Sources/StrataPostgreSQLStore/PostgreSQLChangeListener.swift):
/// the sending store instance and the keys of the inserted, updated and deleted rows by entity
/// name, with the new versions of the updated ones. JSON with one-letter keys, so that a
/// payload holds many keys; a commit whose changes do not fit PostgreSQL's payload limit (under
/// 8000 bytes) is sent as several messages (``payloads(origin:inserted:updated:deleted:history:limit:)``),
/// all delivered at the commit. A value type: use it on any thread.
struct PostgreSQLChangeMessage: Codable, Equatable, Sendable {
    /// The store instance that committed (its own messages are skipped).
    var origin: String
    /// Keys of inserted rows, by entity name.
    var inserted: [String: [Int64]] = [:]
    /// Keys of updated rows, by entity name; `versions` holds their new versions, in order.
    var updated: [String: [Int64]] = [:]
    /// New versions of the updated rows, parallel to `updated`.
    var versions: [String: [Int64]] = [:]
    /// Keys of deleted rows, by entity name.
    var deleted: [String: [Int64]] = [:]
    /// The number of the history transaction that recorded the commit, when the sending
    /// store tracks history (every message of a commit carries it).
    var history: Int64?

    enum CodingKeys: String, CodingKey {
        case origin = "o"
        case inserted = "i"
        case updated = "u"
        case versions = "v"
        case deleted = "d"
        case history = "h"
    }

    /// The payload bytes a message aims to stay under: PostgreSQL refuses 8000 and more.
    static let payloadLimit = 7_000

    /// The payloads that report a commit: as few messages as fit `limit` bytes each (their size
    /// counted before encoding, the JSON's frame with a margin). Rows are (entity name, key) and,
    /// for updates, the version.
    static func payloads(
        origin: String, inserted: [(entity: String, key: Int64)], updated: [(entity: String, key: Int64, version: Int64)],
        deleted: [(entity: String, key: Int64)], history: Int64? = nil, limit: Int = payloadLimit
    ) -> [String] {
        var messages: [PostgreSQLChangeMessage] = []
        var current = PostgreSQLChangeMessage(origin: origin, history: history)
        var size = 70 + origin.utf8.count
        // A key or version costs its digits and a comma; an entity met for the first time in a
        // list costs its name, quotes, colon and brackets (twice for updates: keys and versions).
        func length(_ number: Int64) -> Int {
            var digits = number < 0 ? 2 : 1
            var rest = number.magnitude
            while rest >= 10 {
                rest /= 10
                digits += 1
            }
            return digits + 1
        }
        func makeRoom(for cost: Int) {
            if size + cost > limit, !current.isEmpty {
                messages.append(current)
                current = PostgreSQLChangeMessage(origin: origin, history: history)
                size = 70 + origin.utf8.count
            }
            size += cost
        }
        func entityCost(_ entity: String, in list: [String: [Int64]]) -> Int { list[entity] == nil ? entity.utf8.count * 2 + 8 : 0 }
        for row in inserted {
            makeRoom(for: length(row.key) + entityCost(row.entity, in: current.inserted))
            current.inserted[row.entity, default: []].append(row.key)
        }
        for row in updated {
            makeRoom(for: length(row.key) + length(row.version) + 2 * entityCost(row.entity, in: current.updated))
            current.updated[row.entity, default: []].append(row.key)
            current.versions[row.entity, default: []].append(row.version)
        }
        for row in deleted {
            makeRoom(for: length(row.key) + entityCost(row.entity, in: current.deleted))
            current.deleted[row.entity, default: []].append(row.key)
        }
        if !current.isEmpty { messages.append(current) }
        return messages.map(\.json)
    }

    /// The message as JSON, as `JSONEncoder` would write it with sorted keys (every key but an
    /// absent history; names and the origin escaped as JSON strings), written directly: encoding
    /// thousands of keys through `JSONEncoder` boxes each one, and was over half of a large batch
    /// update's time in Strata. `decode(_:)` reads it with `JSONDecoder`.
    var json: String {
        var text = "{"
        text.reserveCapacity(256 + 12 * (inserted.values.map(\.count).reduce(0, +) + 2 * updated.values.map(\.count).reduce(0, +) + deleted.values.map(\.count).reduce(0, +)))
        func lists(_ key: String, _ lists: [String: [Int64]]) {
            text += "\"\(key)\":{"
            for (index, name) in lists.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.appendJSONString(name, to: &text)
                text += ":["
                for (position, number) in (lists[name] ?? []).enumerated() {
                    if position > 0 { text += "," }
                    text += String(number)
                }
                text += "]"
            }
            text += "},"
        }
        lists("d", deleted)
        if let history { text += "\"h\":\(history)," }
        lists("i", inserted)
        text += "\"o\":"
        Self.appendJSONString(origin, to: &text)
        text += ","
        lists("u", updated)
        lists("v", versions)
        text.removeLast()  // the last comma
        return text + "}"
    }

    /// `string` as a JSON string literal: quoted, with `"`, `\\` and control characters escaped.
    private static func appendJSONString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// The message a payload holds; nil for a payload that is not one (another program's
    /// notification on the channel).
    static func decode(_ payload: String) -> PostgreSQLChangeMessage? {
        guard let message = try? JSONDecoder().decode(PostgreSQLChangeMessage.self, from: Data(payload.utf8)) else { return nil }
        for (entity, keys) in message.updated where message.versions[entity]?.count != keys.count { return nil }
        return message
    }

    /// Whether the message reports no row.
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
