import Foundation
import Testing

@testable import StrataPostgreSQLStore

/// The payload a PostgreSQL store's commit sends to the other coordinators on the database.
/// PostgreSQL refuses a `NOTIFY` payload of 8000 bytes or more (error 22023), so a commit of
/// many rows is reported in several messages, each under the limit, that together name every row.
@Suite("PostgreSQL change messages")
struct PostgreSQLChangeMessageTests {
    @Test("a small commit is one message that decodes to what was sent")
    func roundTrip() throws {
        let payloads = PostgreSQLChangeMessage.payloads(
            origin: "A", inserted: [("Person", 1), ("Team", 7)], updated: [("Person", 2, 5)], deleted: [("Person", 3)])
        #expect(payloads.count == 1)
        let message = try #require(PostgreSQLChangeMessage.decode(payloads[0]))
        #expect(message.origin == "A")
        #expect(message.inserted == ["Person": [1], "Team": [7]])
        #expect(message.updated == ["Person": [2]] && message.versions == ["Person": [5]])
        #expect(message.deleted == ["Person": [3]])
    }

    @Test("a large commit is split into messages under the limit that together name every row")
    func splitting() throws {
        let inserted = (0..<3_000).map { (entity: $0.isMultiple(of: 2) ? "Person" : "Team with a long entity name", key: Int64.max - Int64($0)) }
        let updated = (0..<2_000).map { (entity: "Person", key: Int64($0), version: Int64.max) }
        let deleted = (0..<1_000).map { (entity: "Team with a long entity name", key: Int64.min + Int64($0)) }
        let payloads = PostgreSQLChangeMessage.payloads(origin: UUID().uuidString, inserted: inserted, updated: updated, deleted: deleted)
        #expect(payloads.count > 1)
        var seenInserted = 0
        var seenUpdated = 0
        var seenDeleted = 0
        for payload in payloads {
            #expect(payload.utf8.count < 8_000)
            let message = try #require(PostgreSQLChangeMessage.decode(payload))
            seenInserted += message.inserted.values.map(\.count).reduce(0, +)
            seenUpdated += message.updated.values.map(\.count).reduce(0, +)
            seenDeleted += message.deleted.values.map(\.count).reduce(0, +)
        }
        #expect(seenInserted == inserted.count && seenUpdated == updated.count && seenDeleted == deleted.count)
    }

    @Test("messages are filled close to the limit: short keys make few messages")
    func filling() throws {
        let updated = (1...10_000).map { (entity: "Item", key: Int64($0), version: Int64(2)) }
        let payloads = PostgreSQLChangeMessage.payloads(origin: UUID().uuidString, inserted: [], updated: updated, deleted: [])
        // About 8 bytes a row (key, version, two commas): some 80 kB, in messages of up to 7,000.
        #expect(payloads.count <= 13)
        for payload in payloads.dropLast() { #expect((6_000...7_000).contains(payload.utf8.count), "\(payload.utf8.count) bytes") }
        let rows = payloads.compactMap(PostgreSQLChangeMessage.decode).flatMap { $0.updated["Item"] ?? [] }
        #expect(rows == updated.map(\.key))
    }

    @Test("the JSON written directly is what JSONEncoder writes, and decodes to the message")
    func directJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let messages = [
            PostgreSQLChangeMessage(origin: "A", inserted: ["Person": [1, -2]], updated: ["Team": [3]], versions: ["Team": [Int64.max]], deleted: [:], history: 7),
            PostgreSQLChangeMessage(origin: "quote \" back \\ tab \t line \n bell \u{7} é ✓", deleted: ["Odd \"name\"": [Int64.min], "Ä": [0]]),
            PostgreSQLChangeMessage(origin: UUID().uuidString),
        ]
        for message in messages {
            #expect(PostgreSQLChangeMessage.decode(message.json) == message)
            #expect(message.json == String(decoding: try encoder.encode(message), as: UTF8.self))
        }
    }

    @Test("another program's payload on the channel is not a message")
    func foreignPayloads() {
        #expect(PostgreSQLChangeMessage.decode("") == nil)
        #expect(PostgreSQLChangeMessage.decode("hello") == nil)
        #expect(PostgreSQLChangeMessage.decode(#"{"o":"x","u":{"P":[1,2]},"v":{"P":[1]}}"#) == nil)
    }
}
