import Foundation
import Strata
import StrataPostgreSQL
import StrataPostgreSQLStore
import StrataTestSupport
import Testing

/// The PostgreSQL store's indexes serve its sorted fetches. Strata sorts nil first ascending and
/// last descending, so the store writes `ORDER BY … ASC NULLS FIRST` / `DESC NULLS LAST`; a
/// B-tree index is usable for an ORDER BY only when its NULL order matches (PostgreSQL's
/// "Indexes and ORDER BY"), so indexed attributes and fetch indexes are created `NULLS FIRST`.
/// Without it, `fetchLimit` 100 sorted on an indexed attribute sorted the whole table (the
/// PostgreSQL benchmark pairs, docs/benchmarks.md).
@Suite("PostgreSQL store: indexes", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLIndexTests {
    /// `Item` with an indexed optional `number`, and a fetch index on (`rank` descending).
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let number = AttributeDescription(name: "number", type: .integer64)
        number.isIndexed = true
        let rank = AttributeDescription(name: "rank", type: .integer64)
        item.properties = [number, rank, AttributeDescription(name: "name", type: .string)]
        item.indexes = [FetchIndexDescription(name: "byRank", elements: [.init(propertyName: "rank", isAscending: false)])]
        return ManagedObjectModel(entities: [item])
    }

    /// The server's plan for the statement the store sends for a sorted fetch with a limit
    /// (PostgreSQLSortCompiler's `ORDER BY`, the key breaking ties).
    static func plan(_ connection: PostgreSQLConnection, table: String, orderBy: String) throws -> String {
        let rows = try connection.execute(
            "EXPLAIN (COSTS OFF) SELECT * FROM \(table) AS \"t\" WHERE \"t\".\"$entity\" = 'Item' ORDER BY \(orderBy), \"t\".\"$pk\" LIMIT 100")
        return try rows.compactMap { try $0.string(0) }.joined(separator: "\n")
    }

    @Test func sortedFetchesWithALimitReadTheIndex() throws {
        let database = try PostgreSQLTestDatabase()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: Self.model())
        try database.addStore(to: coordinator)
        let context = StoreConformanceTests.context(coordinator)
        try context.performAndWait {
            for index in 0..<5_000 {
                let item = try EntityDescription.insertNewObject(forEntityName: "Item", into: context)
                item.setValue(index % 100 == 0 ? nil : Int64((index * 7_919) % 10_007), forKey: "number")
                item.setValue(Int64(index % 1_000), forKey: "rank")
                item.setValue("item \(index)", forKey: "name")
            }
            try context.save()
        }
        let connection = try database.connect()
        let table = try PostgreSQLIdentifier.quoted(database.namespace) + ".\"Item\""
        try connection.execute("ANALYZE \(table)")
        for (orderBy, scan) in [
            ("\"t\".\"number\" ASC NULLS FIRST", "Index Scan using"), ("\"t\".\"number\" DESC NULLS LAST", "Index Scan Backward using"),
            ("\"t\".\"rank\" DESC NULLS LAST", "Index Scan using"), ("\"t\".\"rank\" ASC NULLS FIRST", "Index Scan Backward using"),
        ] {
            let plan = try Self.plan(connection, table: table, orderBy: orderBy)
            #expect(plan.contains(scan), "ORDER BY \(orderBy):\n\(plan)")
            #expect(!plan.contains("Seq Scan"), "ORDER BY \(orderBy):\n\(plan)")
        }

        // The order is Strata's: nil first ascending, last descending.
        let numbers = try context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [ObjectSortDescriptor(key: "number", ascending: true)]
            request.fetchLimit = 60
            return try context.fetch(request).map { $0.value(forKey: "number") as? Int64 }
        }
        #expect(numbers.prefix(50).allSatisfy { $0 == nil })
        let present = numbers.dropFirst(50).compactMap { $0 }
        #expect(present.count == 10 && present == present.sorted())
    }
}
