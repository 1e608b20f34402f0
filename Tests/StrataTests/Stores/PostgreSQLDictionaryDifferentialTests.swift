import Foundation
import StrataPostgreSQL
import StrataTestSupport
import Testing

@testable import Strata
@testable import StrataPostgreSQLStore

/// Dictionary fetches on the PostgreSQL store — run as one `SELECT … GROUP BY` when
/// `PostgreSQLDictionaryCompiler` can, else computed by Strata over the matching rows — against
/// the in-memory store, on the same objects. Core Data's rule: a fetch gives the same results
/// whatever store runs it; Strata's results follow SQLite's rules (see
/// `StoreDictionaryFetchRequest`). The objects hold the values where SQL and Strata could part:
/// NULLs, 0.0 and −0.0, NaN, infinities, integers whose sum leaves 64 bits, strings that differ
/// in case, accents (composed and decomposed) and emoji, booleans, dates, data, UUIDs, decimals.
/// Each random request (columns, aggregates, group keys, predicate, order, distinct, window) must
/// give the same dictionaries in the same order, or fail on both stores.
///
/// Replay with `STRATA_DIFF_SEED=<seed>`.
@Suite("PostgreSQL dictionary fetches: SQL and the in-memory engine agree", .disabled(if: PostgreSQLTestDatabase.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLDictionaryDifferentialTests {
    static let attributes: [(String, AttributeType)] = [
        ("i16", .integer16), ("i32", .integer32), ("i64", .integer64), ("dbl", .double), ("flt", .float), ("str", .string), ("flag", .boolean),
        ("day", .date), ("blob", .binaryData), ("uuid", .uuid), ("dec", .decimal),
    ]
    static let numeric = ["i16", "i32", "i64", "dbl", "flt", "flag", "dec"]
    static let ordered = ["i16", "i32", "i64", "dbl", "flt", "str", "flag", "day", "dec"]

    static func model() -> ManagedObjectModel {
        let sample = EntityDescription(name: "Sample")
        sample.properties = attributes.map { AttributeDescription(name: $0.0, type: $0.1) }
        let special = EntityDescription(name: "Special")
        sample.subentities = [special]
        special.properties = [AttributeDescription(name: "extra", type: .string)]
        return ManagedObjectModel(entities: [sample, special])
    }

    /// The same objects, in the same order, in `context`'s store.
    static func fill(_ context: ManagedObjectContext, seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let strings: [String?] = [nil, "a", "A", "b", "émile", "e\u{301}mile", "😀", "", "abc", "ABC", "z"]
        let doubles: [Double?] = [nil, 0.0, -0.0, 1.5, -2.25, .nan, .infinity, -.infinity, 1e300, 3]
        let days: [Date?] = [nil, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.0), Date(timeIntervalSinceReferenceDate: 86_400.5)]
        let uuids = ["00000000-0000-0000-0000-000000000001", "7F000000-0000-0000-0000-0000000000FF", "FFFFFFFF-0000-0000-0000-000000000000"].compactMap(UUID.init(uuidString:))
        try context.performAndWait {
            let model = try #require(context.persistentStoreCoordinator?.managedObjectModel)
            for index in 0..<240 {
                let entity = try #require(model.entitiesByName[index % 7 == 0 ? "Special" : "Sample"])
                let object = ManagedObject(entity: entity, insertInto: context)
                func pick<T>(_ values: [T?]) -> T? { values[Int(random.next() % UInt64(values.count))] }
                if let v = pick([nil, Int16(1), Int16(-3), Int16.max, Int16(0)]) { object.setValue(v, forKey: "i16") }
                if let v = pick([nil, Int32(7), Int32(-7), Int32(100), Int32.min]) { object.setValue(v, forKey: "i32") }
                if let v = pick([nil, Int64.max, Int64.max - 1, Int64(5), Int64(-9), Int64.min]) { object.setValue(v, forKey: "i64") }
                if let v = pick(doubles) { object.setValue(v, forKey: "dbl") }
                if let v = pick(doubles) { object.setValue(Float(v), forKey: "flt") }
                if let v = pick(strings) { object.setValue(v, forKey: "str") }
                if let v = pick([nil, true, false]) { object.setValue(v, forKey: "flag") }
                if let v = pick(days) { object.setValue(v, forKey: "day") }
                if let v = pick([nil, Data(), Data([0]), Data([1, 2]), Data([255])]) { object.setValue(v, forKey: "blob") }
                if let v = pick(uuids + [nil]) { object.setValue(v, forKey: "uuid") }
                if let v = pick([nil, Decimal(string: "0.1"), Decimal(string: "1.50"), Decimal(-3), Decimal(string: "12345678901234567890.5")]) { object.setValue(v, forKey: "dec") }
                if entity.name == "Special", let v = pick(strings) { object.setValue(v, forKey: "extra") }
            }
            try context.save()
        }
    }

    /// One random dictionary request.
    static func request(_ random: inout SeededRandom) throws -> FetchRequest<NSDictionary> {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        let request = FetchRequest<NSDictionary>(entityName: pick(["Sample", "Sample", "Special"]))
        request.resultType = .dictionaryResultType
        request.includesSubentities = random.next() % 4 != 0
        request.predicate = pick([
            nil, "i32 > 0", "str BEGINSWITH 'a'", "dbl < 2", "flag == YES", "str ==[c] 'a'", "i64 != 5 AND dbl != nil", "str MATCHES 'a.*'", "NOT (i16 == 1)",
        ]).map { ObjectPredicate(format: $0) }
        var sortable: [String] = []
        switch random.next() % 3 {
        case 0:
            // One row per object.
            let names = Array(Set((0..<(1 + Int(random.next() % 4))).map { _ in pick(attributes.map(\.0)) })).sorted()
            request.propertiesToFetch = names
            sortable = names.filter { ordered.contains($0) }
            request.returnsDistinctResults = random.next() % 3 == 0
        default:
            // Groups and aggregates.
            let keys = Array(Set((0..<Int(random.next() % 3)).map { _ in pick(ordered + ["blob", "uuid"]) })).sorted()
            var properties: [Any] = keys
            sortable = keys.filter { ordered.contains($0) }
            for index in 0..<(1 + Int(random.next() % 3)) {
                let function = pick(["count", "sum", "average", "min", "max"])
                let argument = function == "sum" || function == "average" ? pick(numeric) : pick(ordered)
                let name = "\(function)\(index)"
                properties.append(ExpressionDescription(name: name, expression: try ObjectExpression(validatingFormat: "\(function):(\(argument))"), resultType: .undefined))
                sortable.append(name)
            }
            request.propertiesToFetch = properties
            if !keys.isEmpty { request.propertiesToGroupBy = keys }
        }
        if !sortable.isEmpty && random.next() % 3 != 0 {
            request.sortDescriptors = (0..<(1 + Int(random.next() % 2))).map { _ in ObjectSortDescriptor(key: pick(sortable), ascending: random.next() % 2 == 0) }
        }
        if random.next() % 3 == 0 { request.fetchLimit = 1 + Int(random.next() % 20) }
        if random.next() % 4 == 0 { request.fetchOffset = Int(random.next() % 10) }
        return request
    }

    /// The results as comparable text (keys sorted; `-0.0`, `nan` and types visible), or the
    /// error's code.
    static func outcome(_ request: FetchRequest<NSDictionary>, in context: ManagedObjectContext) -> String {
        context.performAndWait {
            do {
                return try context.fetch(request).map { dictionary in
                    dictionary.map { "\($0.key)=\(type(of: $0.value)):\($0.value)" }.sorted().joined(separator: ",")
                }.joined(separator: "\n")
            } catch let error as StrataError {
                return "error \(error.code)"
            } catch {
                return "error \(error)"
            }
        }
    }

    @Test("random dictionary requests give the same results on PostgreSQL and in memory; most run in SQL")
    func requestsAgree() throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_DIFF_SEED"].flatMap { UInt64($0) } ?? 20_261_202
        let model = Self.model()
        let memory = try TestStack(model: model, kind: .inMemory)
        let server = try TestStack(model: model, kind: .postgreSQL)
        let memoryContext = memory.newContext()
        let serverContext = server.newContext()
        try Self.fill(memoryContext, seed: seed)
        try Self.fill(serverContext, seed: seed)
        let store = try #require(server.coordinator.persistentStores.first?.incrementalStore as? PostgreSQLStore)
        var random = SeededRandom(seed: seed)
        var inSQL = 0
        var compared = 0
        var failures: [String] = []
        for index in 0..<400 {
            let request = try Self.request(&random)
            let expected = Self.outcome(request, in: memoryContext)
            let actual = Self.outcome(request, in: serverContext)
            compared += 1
            if expected != actual {
                failures.append(
                    "#\(index) (seed \(seed)): \(request.propertiesToFetch ?? []) group \(request.propertiesToGroupBy ?? []) \(request.predicate.map { "\($0)" } ?? "-") sort \(request.sortDescriptors ?? []) distinct \(request.returnsDistinctResults) limit \(request.fetchLimit) offset \(request.fetchOffset)\nmemory:\n\(expected)\npostgresql:\n\(actual)"
                )
            }
            if !expected.hasPrefix("error"), let entity = model.entitiesByName[request.entityName ?? ""],
                let plan = try? DictionaryPlan.make(request, entity: entity), let storeRequest = StoreDictionaryFetchRequest(plan: plan),
                PostgreSQLDictionaryCompiler.compile(storeRequest, fetch: store.compiledFetch(storeRequest.rows), table: try store.plan(for: entity).table, alias: PostgreSQLStore.fetchAlias)
                    != nil
            {
                inSQL += 1
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(compared) differ; first: \((failures.first ?? "").prefix(4_000))")
        // The compiler must actually carry a good share of the requests.
        #expect(inSQL >= compared / 4, "only \(inSQL) of \(compared) ran in SQL")
        print("PostgreSQL dictionary differential: \(compared) requests, \(inSQL) in SQL, \(failures.count) mismatches (seed \(seed))")
    }
}
