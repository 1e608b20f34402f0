import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQLStore
@testable import StrataTestSupport

/// Batch updates by expression on PostgreSQL run in the one `UPDATE` when SQL computes the
/// expressions exactly as Strata does, and give the SQLite store's values. Core Data's fact:
/// `NSBatchUpdateRequest.propertiesToUpdate` maps attributes to constants or `NSExpression`s
/// evaluated on each row in the store (`price * 1.1`, another attribute's key path), without
/// loading objects or validating them. Strata's arithmetic is SQLite's: integers stay 64-bit
/// integers unless they overflow, an integer assigned to a double attribute becomes a double, `/`
/// divides doubles and gives nil for a zero divisor, NaN and infinities are kept.
@Suite("PostgreSQL batch updates by expression", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLBatchUpdateExpressionTests {
    /// Item (integers of every width, doubles, a float, optional and required) → Crew (to-one
    /// `crew`, with an optional integer `factor`).
    static func model() -> ManagedObjectModel {
        let item = EntityDescription(name: "Item")
        let crew = EntityDescription(name: "Crew")
        item.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "label", type: .string),
            AttributeDescription(name: "count16", type: .integer16, isOptional: false, defaultValue: Int16(0)),
            AttributeDescription(name: "count32", type: .integer32),
            AttributeDescription(name: "count64", type: .integer64, isOptional: false, defaultValue: Int64(0)),
            AttributeDescription(name: "price", type: .double, isOptional: false, defaultValue: 0.0),
            AttributeDescription(name: "bonus", type: .double),
            AttributeDescription(name: "weight", type: .float),
            RelationshipDescription(name: "crew", destination: crew, inverse: "items"),
        ]
        crew.properties = [
            AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
            AttributeDescription(name: "factor", type: .integer64),
            RelationshipDescription(name: "items", destination: item, inverse: "crew", toMany: true),
        ]
        return ManagedObjectModel(entities: [item, crew])
    }

    /// Items i0…i4 with ordinary and edge values (30 000 in 16 bits, Int64.max / 2, infinity,
    /// NaN, −0.0, 1e300, 1e-300, nils) in crews c1 (factor 5, three items) and c2 (no factor).
    static func seeded(_ kind: TestStack.Kind) throws -> TestStack {
        let stack = try TestStack(model: model(), kind: kind)
        let context = stack.newContext()
        try context.performAndWait {
            func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
                let object = ManagedObject(entity: try #require(stack.model.entitiesByName[entity]), insertInto: context)
                for (key, value) in values { object.setValue(value, forKey: key) }
                return object
            }
            let c1 = try insert("Crew", ["name": "c1", "factor": Int64(5)])
            let c2 = try insert("Crew", ["name": "c2"])
            let rows: [[String: Any]] = [
                ["name": "i0", "count16": Int16(1), "count64": Int64(10), "price": 2.5, "weight": Float(1.5), "crew": c1],
                ["name": "i1", "count16": Int16(30_000), "count32": Int32(7), "count64": Int64(-7), "price": Double.infinity, "bonus": 1.5, "crew": c1],
                ["name": "i2", "count16": Int16(-5), "count64": Int64.max / 2, "price": Double.nan, "bonus": -0.0, "crew": c2],
                ["name": "i3", "count32": Int32(-1), "price": -0.0],
                ["name": "i4", "count16": Int16(7), "count32": Int32(100), "count64": Int64(123_456_789), "price": 1e300, "bonus": 1e-300, "crew": c1],
            ]
            for row in rows { _ = try insert("Item", row) }
            try context.save()
        }
        return stack
    }

    /// Every item's stored values as text, by name, read by a new coordinator.
    static func values(_ stack: TestStack) throws -> [String: String] {
        try stack.reopen()
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: String] = [:]
            for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
                let keys = ["label", "count16", "count32", "count64", "price", "bonus", "weight"]
                result[item.value(forKey: "name") as? String ?? "?"] = keys.map { "\($0)=\(item.value(forKey: $0).map { "\($0)" } ?? "nil")" }.joined(separator: " ")
            }
            return result
        }
    }

    /// The request's update as the store receives it.
    static func request(_ stack: TestStack, predicate: String?, _ expressions: [String: String]) throws -> StoreBatchUpdateRequest {
        let plan = try BatchUpdatePlan.make(
            entity: try #require(stack.model.entitiesByName["Item"]), predicate: predicate.map { ObjectPredicate(format: $0) }, includesSubentities: true,
            propertiesToUpdate: Dictionary(uniqueKeysWithValues: expressions.map { (AnyHashable($0.key), ObjectExpression(format: $0.value) as Any) }),
            returnsObjectIDs: true)
        return StoreBatchUpdateRequest(plan: plan)
    }

    /// Runs the update through a context (`execute(_:)`), as an app would.
    static func execute(_ stack: TestStack, predicate: String?, _ expressions: [String: String]) throws {
        let context = stack.newContext()
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Item")
            update.predicate = predicate.map { ObjectPredicate(format: $0) }
            update.propertiesToUpdate = expressions.mapValues { ObjectExpression(format: $0) }
            _ = try context.execute(update)
        }
    }

    static func store(_ stack: TestStack) throws -> PostgreSQLStore {
        try #require(stack.coordinator.persistentStores.first?.incrementalStore as? PostgreSQLStore)
    }

    /// Core Data: the expressions are evaluated on each row (integer arithmetic, doubles with
    /// NaN and infinities, integers widened, division giving doubles, key paths through a
    /// to-one and `@count`, another attribute's value); Strata's values are the SQLite store's.
    @Test(
        "expressions SQL computes exactly run in the UPDATE and give the SQLite store's values",
        arguments: [
            ("count64 < 1000000", ["count64": "count64 * 3 - 7"]),
            (nil, ["price": "price * 1.1"]),
            (nil, ["bonus": "count64 / 3", "count32": "count16 + count16"]),
            ("count64 < 1000000", ["count64": "FUNCTION(count64, 'modulus:by:', 7)", "count32": "FUNCTION(count32, 'modulus:by:', -1)"]),
            (nil, ["bonus": "price / 0"]),
            (nil, ["count32": "crew.factor * 2", "count64": "crew.items.@count"]),
            (nil, ["label": "name", "bonus": "price - price", "count32": "count16"]),
            ("crew.name == 'c1'", ["price": "count16 + 0.25"]),
        ] as [(String?, [String: String])])
    func sameAsSQLite(predicate: String?, expressions: [String: String]) throws {
        let sqlite = try Self.seeded(.sqlite)
        let postgres = try Self.seeded(.postgreSQL)
        try Self.execute(sqlite, predicate: predicate, expressions)
        let result = try #require(try Self.store(postgres).executeBatchUpdate(Self.request(postgres, predicate: predicate, expressions)))
        #expect(result.count == result.updatedObjectIDs.count && result.count > 0)
        #expect(try Self.values(postgres) == Self.values(sqlite))
    }

    /// What SQL would compute otherwise — an integer beyond 64 bits (Strata: a double), a value
    /// beyond a 16-bit attribute (Strata: a validation error), a double overflowing or
    /// underflowing (Strata: infinity, 0), nil for a required attribute (Strata: an error),
    /// float arithmetic — is rolled back and left to Strata (nil), which gives the SQLite
    /// store's result where the SQLite store runs Strata's rules.
    @Test(
        "results SQL would give otherwise are left to Strata; nothing is written first",
        arguments: [
            (["count64": "count64 * 4"], false), (["count16": "count16 * 1000"], true), (["price": "price * 1e10"], true), (["bonus": "bonus * 1e-300"], true),
            (["price": "bonus + 1"], false), (["weight": "weight * 2"], true), (["bonus": "abs:(price)"], true),
            (["count16": "FUNCTION(count16, 'modulus:by:', 0)"], false),
        ])
    func leftToStrata(expressions: [String: String], comparesWithSQLite: Bool) throws {
        let postgres = try Self.seeded(.postgreSQL)
        let before = try Self.values(postgres)
        #expect(try Self.store(postgres).executeBatchUpdate(Self.request(postgres, predicate: nil, expressions)) == nil)
        #expect(try Self.values(postgres) == before)
        guard comparesWithSQLite else { return }
        let sqlite = try Self.seeded(.sqlite)
        let sqliteError = Result { try Self.execute(sqlite, predicate: nil, expressions) }.error as? StrataError
        let postgresError = Result { try Self.execute(postgres, predicate: nil, expressions) }.error as? StrataError
        #expect(sqliteError?.code == postgresError?.code)
        #expect(try Self.values(postgres) == Self.values(sqlite))
    }

    /// Core Data: an update by expression is a change like any other for live contexts and for
    /// other processes: merging the IDs shows the new values, and another coordinator on the
    /// database hears of it.
    @Test("an update by expression merges and reaches another coordinator")
    func mergesAndNotifies() throws {
        let stack = try Self.seeded(.postgreSQL)
        let database = try #require(stack.database)
        let other = PersistentStoreCoordinator(managedObjectModel: stack.model)
        try database.addStore(to: other)
        let watcher = ManagedObjectContext(concurrencyType: .privateQueue)
        watcher.persistentStoreCoordinator = other
        watcher.automaticallyMergesChangesFromParent = true
        let watched = try watcher.performAndWait { try #require(try watcher.fetch(BatchDeleteTests.request("Item", "name == 'i0'") as FetchRequest<ManagedObject>).first) }
        #expect(watcher.performAndWait { watched.value(forKey: "count64") as? Int64 } == 10)
        let context = stack.newContext()
        try context.performAndWait {
            let update = BatchUpdateRequest(entityName: "Item")
            update.predicate = ObjectPredicate(format: "name == 'i0'")
            update.propertiesToUpdate = ["count64": ObjectExpression(format: "count64 * 2 + crew.factor")]
            update.resultType = .updatedObjectIDsResultType
            let ids = try #require((try context.execute(update) as? BatchUpdateResult)?.result as? [ManagedObjectID])
            #expect(ids.count == 1)
        }
        #expect(ChangesMadeElsewhereTests.eventually(watcher, within: 5) { watched.value(forKey: "count64") as? Int64 == 25 })
    }
}

extension Result where Failure == any Error {
    /// The error, when it failed.
    fileprivate var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
