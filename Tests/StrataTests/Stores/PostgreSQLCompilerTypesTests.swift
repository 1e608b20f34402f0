import Foundation
import Strata
import StrataPostgreSQL
import StrataTestSupport
import Testing

@testable import StrataPostgreSQLStore

/// The types the query fixture lacks — UUIDs, binary data, URIs — compared and sorted in
/// PostgreSQL as in Strata's in-memory engine.
///
/// Core Data's rule: the same fetch gives the same objects in the same order on every store.
/// Strata orders data and UUIDs by their bytes (shorter first on a common prefix) and URIs by
/// their text's bytes; PostgreSQL's `bytea` and `uuid` compare the same way, text under
/// `COLLATE "C"`.
@Suite("PostgreSQL fetch compiler: UUIDs, data and URIs", .serialized, .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLCompilerTypesTests {
    @Test("UUID, data and URI comparisons and sorts select the same rows")
    func typesAgree() throws {
        let fixture = try TypesFixture()
        defer { _ = try? fixture.connection.execute("DROP SCHEMA \(fixture.schema.quotedNamespace) CASCADE") }
        let uuid = TypesFixture.uuids[3]
        let bytes = TypesFixture.blobs[4]
        var tally = PostgreSQLDifferentialTally()
        let fixed: [(String, [Any])] = [
            ("id == %@", [uuid]), ("id != %@", [uuid]), ("id < %@", [uuid]), ("id >= %@", [uuid]), ("id == %@", [uuid.uuidString]), ("id IN %@", [[uuid, TypesFixture.uuids[0]]]),
            ("id == nil", []), ("bytes == %@", [bytes]), ("bytes < %@", [bytes]), ("bytes > %@", [Data()]), ("bytes BETWEEN %@", [[Data([0]), Data([0xFF])]]),
            ("bytes != nil", []), ("link == %@", [URL(string: "https://b.example/é") as Any]), ("link < %@", [URL(string: "https://b.example") as Any]), ("link > %@", ["https://a"]),
            ("link ==[c] %@", ["HTTPS://A.EXAMPLE"]),
        ]
        for (format, arguments) in fixed {
            let predicate = ObjectPredicate(format: format, argumentArray: arguments)
            for key in ["id", "bytes", "link"] {
                for ascending in [true, false] {
                    try fixture.check(predicate, sorts: [ObjectSortDescriptor(key: key, ascending: ascending)], limit: 30, offset: 2, label: "\(format) by \(key)", tally: &tally)
                }
            }
        }
        #expect(tally.mismatches == 0, "\(tally)")
        #expect(tally.windowed > 60, "\(tally)")
    }
}

/// `Thing(idx, id: UUID, bytes: Data, link: URI)` rows with nils, shared prefixes and empty values,
/// in an in-memory store and in PostgreSQL.
final class TypesFixture: PostgreSQLDifferentialChecking {
    static let uuids: [UUID] = (0..<8).map { index in
        UUID(uuid: (UInt8(index * 37 % 256), 0x10, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(index)))
    }
    static let blobs: [Data] = [Data(), Data([0]), Data([0, 0]), Data([0, 1]), Data([1]), Data([0x7F]), Data([0x80]), Data([0xFF]), Data([0xFF, 0])]
    static let links: [String] = ["https://a.example", "https://b.example", "https://b.example/é", "https://A.example", "http://a.example/?q=1", "file:///tmp/x"]

    let item: EntityDescription
    let context: ManagedObjectContext
    let connection: PostgreSQLConnection
    let schema: PostgreSQLSchema
    let idxByID: [ManagedObjectID: Int64]
    private let stack: TestStack
    private let storeIdentifier: String?

    init() throws {
        let thing = EntityDescription(name: "Thing")
        thing.properties = [
            AttributeDescription(name: "idx", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "id", type: .uuid),
            AttributeDescription(name: "bytes", type: .binaryData),
            AttributeDescription(name: "link", type: .uri),
        ]
        let model = ManagedObjectModel(entities: [thing])
        item = thing
        stack = try TestStack(model: model, kind: .inMemory, recordsSQL: false)
        context = stack.newContext()
        var rows: [[PostgreSQLValue]] = []
        for index in 0..<90 {
            let id = index % 9 == 0 ? nil : Self.uuids[index % Self.uuids.count]
            let bytes = index % 10 == 1 ? nil : Self.blobs[(index * 5) % Self.blobs.count]
            // Strata keeps a URI as its absoluteString (percent-encoded), and so does the table.
            let link = index % 11 == 2 ? nil : URL(string: Self.links[(index * 7) % Self.links.count])?.absoluteString
            rows.append([.int64(Int64(index + 1)), .text("Thing"), .int64(1), .int64(Int64(index)), id.map { .uuid($0) } ?? .null, bytes.map { .bytes($0) } ?? .null, link.map { .text($0) } ?? .null])
        }
        let context = self.context
        idxByID = try context.performAndWait {
            for row in rows {
                let object = ManagedObject(entity: thing, insertInto: context)
                if case .int64(let idx) = row[3] { object.setValue(idx, forKey: "idx") }
                if case .uuid(let id) = row[4] { object.setValue(id, forKey: "id") }
                if case .bytes(let bytes) = row[5] { object.setValue(bytes, forKey: "bytes") }
                if case .text(let link) = row[6] { object.setValue(URL(string: link), forKey: "link") }
            }
            try context.save()
            var byID: [ManagedObjectID: Int64] = [:]
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Thing")) { byID[object.objectID] = (object.value(forKey: "idx") as? Int64) ?? -1 }
            return byID
        }
        storeIdentifier = stack.coordinator.persistentStores.first?.identifier
        for (id, idx) in idxByID where DifferentialEngines.primaryKey(id) != idx + 1 {
            throw StrataError(code: StrataError.Code.coreData, message: "thing \(idx) has key \(DifferentialEngines.primaryKey(id)), not idx + 1")
        }
        connection = try PostgreSQLConnection(url: PostgreSQLTestDatabase.serverURL())
        schema = try PostgreSQLSchema(model: model, configurationName: nil, namespace: "strata_types_" + UUID().uuidString.prefix(8).lowercased())
        try PostgreSQLDifferentialFixture.createTables(schema, on: connection)
        guard let table = schema.table(for: thing) else { return }
        let columns = try ["\"$pk\"", "\"$entity\"", "\"$version\""] + ["idx", "id", "bytes", "link"].map { try PostgreSQLSchema.quoted(table.column(forKey: $0, ofEntityNamed: "Thing") ?? $0) }
        try PostgreSQLDifferentialFixture.insertRows(into: table.quotedName, columns: columns, rows: rows, connection: connection)
    }

    func key(of id: ManagedObjectID) -> Int64? {
        guard !id.isTemporaryID, id.storeIdentifier == storeIdentifier else { return nil }
        return DifferentialEngines.primaryKey(id)
    }
}
