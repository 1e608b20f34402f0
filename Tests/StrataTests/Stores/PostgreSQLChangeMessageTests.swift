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
        let payloads = try PostgreSQLChangeMessage.payloads(
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
        let payloads = try PostgreSQLChangeMessage.payloads(origin: UUID().uuidString, inserted: inserted, updated: updated, deleted: deleted)
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

    @Test("another program's payload on the channel is not a message")
    func foreignPayloads() {
        #expect(PostgreSQLChangeMessage.decode("") == nil)
        #expect(PostgreSQLChangeMessage.decode("hello") == nil)
        #expect(PostgreSQLChangeMessage.decode(#"{"o":"x","u":{"P":[1,2]},"v":{"P":[1]}}"#) == nil)
    }
}
