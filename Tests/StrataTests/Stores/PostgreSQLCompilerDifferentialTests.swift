import Foundation
import Strata
import StrataPostgreSQL
import StrataTestSupport
import Testing

@testable import StrataPostgreSQLStore

/// The PostgreSQL fetch compiler against Strata's in-memory engine, on a real server.
///
/// Core Data's rule the store must keep: a fetch returns the same objects, in the same order,
/// whatever store runs it. The in-memory store is the reference (the SQLite store agrees with it,
/// see `DifferentialTests`). The differential fixture's 2,000 items (with their groups, regions,
/// tags and links: NULLs, accents composed and decomposed, case variants, emoji, Int64 limits,
/// ±infinity, −0.0, NaN, decimals beyond Double's precision) are saved in an in-memory store
/// through a context, and inserted into tables named by `PostgreSQLSchema` in a fresh namespace
/// of the test server (test-only DDL below: the store's own schema creation replaces it later).
/// For each predicate the compiled `WHERE` clause must select exactly the in-memory store's rows
/// when the compiler says it is exact (in the same order under `ORDER BY`, `LIMIT` and `OFFSET`
/// when the sort compiled too), and a superset of them otherwise. Rows are matched by `idx`.
///
/// Replay with `STRATA_DIFF_SEED=<seed>`; `STRATA_PG_DIFF_COUNT` sets the number of random predicates.
@Suite("PostgreSQL fetch compiler: SQL and the in-memory engine agree", .serialized, .disabled(if: PostgreSQLTestServer.isSkipped, "STRATA_SKIP_POSTGRESQL=1"))
struct PostgreSQLCompilerDifferentialTests {
    static let generatedCount = ProcessInfo.processInfo.environment["STRATA_PG_DIFF_COUNT"].flatMap { Int($0) } ?? 600
    static let sortKeys = ["str", "alt", "i16", "i32", "i64", "dbl", "flt", "dec", "day", "flag", "group.name", "group.rank", "group.region.name", "group.score"]

    @Test("fixed and random predicates select the same rows in PostgreSQL and in memory")
    func predicatesAgree() throws {
        let fixture = try PostgreSQLDifferentialFixture()
        defer { fixture.dropNamespace() }
        var tally = PostgreSQLDifferentialTally()
        // The fixed list: one or more of every construct the compiler writes, and some it leaves.
        let other = fixture.groupID(1)
        let items = [3, 17, 400, 1_999].compactMap { fixture.itemID(idx: $0) }
        let fixed: [(String, [Any])] = [
            ("TRUEPREDICATE", []), ("FALSEPREDICATE", []), ("NOT TRUEPREDICATE", []),
            ("str == %@", ["émile"]), ("str == %@", ["e\u{301}mile"]), ("str != %@", ["abc"]), ("str == nil", []), ("str != nil", []),
            ("str < %@", ["b"]), ("str >= %@", ["é"]), ("str BETWEEN {'a', 'b'}", []), ("str IN {'a', 'A', nil, '😀'}", []),
            ("str BEGINSWITH %@", ["a"]), ("str BEGINSWITH %@", [""]), ("str ENDSWITH %@", ["le"]), ("str CONTAINS %@", ["😀"]),
            ("str CONTAINS %@", ["e\u{301}"]), ("str IN %@", ["abcdef"]), ("str BEGINSWITH[c] %@", ["é"]), ("str ==[cd] %@", ["EMILE"]),
            ("str LIKE %@", ["a*"]), ("str MATCHES %@", ["a.*"]), ("str ==[n] %@", ["abc"]),
            ("i16 == 7", []), ("i16 != 7", []), ("i32 < 2.5", []), ("i32 <= 2.5", []), ("i64 > -0.5", []), ("i64 >= 9223372036854775807", []),
            ("i64 < 1e300", []), ("i64 > %@", [Double.nan]), ("i64 != %@", [Double.nan]), ("i64 == 9007199254740993", []),
            ("i64 == %@", [Decimal(42)]), ("i32 BETWEEN {-3, 3.5}", []), ("i32 IN {1, 2.0, 2.5, nil}", []),
            ("dbl == %@", [Double.nan]), ("dbl != %@", [Double.nan]), ("dbl < 0", []), ("dbl > 0", []), ("dbl >= -0.0", []),
            ("dbl == %@", [Double.infinity]), ("dbl > 9007199254740993", []), ("dbl < 2", []), ("flt == 0.1", []), ("flt > 1.5", []),
            ("dec == 0.25", []), ("dec > %@", [Decimal(Int64.max)]), ("dec < 0", []), ("dec == 1", []), ("dec != nil", []),
            ("flag == YES", []), ("flag != NO", []), ("flag == nil", []), ("flag < 1", []), ("flag == 2", []),
            ("day < %@", [Date(timeIntervalSinceReferenceDate: 1)]), ("day == %@", [Date.distantPast]), ("day != %@", [Date.distantFuture]),
            ("group.name BEGINSWITH 'a'", []), ("group.region.code == 1", []), ("group.region.code != 1", []), ("group.region == nil", []),
            ("group == %@", [other as Any]), ("group != %@", [other as Any]), ("group IN %@", [[other as Any]]), ("SELF IN %@", [items]),
            ("SELF == %@", [items.first as Any]), ("SELF == %@", [other as Any]), ("group == nil", []),
            ("ANY tags.weight > 2", []), ("ALL tags.weight > 2", []), ("NONE tags.label == 'red'", []), ("tags.@count == 2", []),
            ("links.@count > 1", []), ("ANY links.label BEGINSWITH 'r'", []), ("ALL links.ratio >= 0", []), ("'red' IN tags.label", []),
            ("SUBQUERY(tags, $t, $t.weight > 1).@count > 0", []), ("SUBQUERY(links, $x, $x.label == 'x' OR $x.ratio < 0).@count == 1", []),
            ("ANY tags.item.group == %@", [other as Any]), ("ANY group.items.str == 'abc'", []), ("group.items.@count > 5", []),
            ("tags.label CONTAINS 'red'", []), ("ALL tags.amount > 0.5", []), ("NONE links.weight == nil", []),
            ("NOT (str == 'a')", []), ("NOT (str BEGINSWITH[c] 'a')", []), ("str == 'a' OR i32 > 2", []), ("str ==[c] 'a' OR i32 > 2", []),
            ("NOT (i32 > 2 AND dbl < 1)", []), ("i32 > 2 AND str ==[c] 'a'", []), ("i32 + 1 > 2", []), ("i16 < i32", []),
            ("tags.@sum.weight > 2", []), ("ALL tags.weight > 2 AND NOT (ANY links.weight == 5)", []),
        ]
        for (index, (format, arguments)) in fixed.enumerated() {
            let predicate = ObjectPredicate(format: format, argumentArray: arguments)
            try fixture.check(predicate, label: "fixed #\(index): \(format)", tally: &tally)
            try fixture.check(
                predicate, sorts: [ObjectSortDescriptor(key: "str"), ObjectSortDescriptor(key: "dbl", ascending: false)], limit: 25, offset: 3, label: "fixed #\(index) sorted", tally: &tally)
        }
        // Random predicates of the query language's own generator.
        let seed = QueryRandom.seed(fromEnvironment: "STRATA_DIFF_SEED", default: DifferentialEngines.defaultSeed)
        var generator = PredicateGenerator(seed: seed ^ 0x9057_6E55)
        var random = QueryRandom(seed: seed ^ 0x50_27ED)
        for index in 0..<Self.generatedCount {
            let generated = generator.next()
            let group = fixture.groupID(random.int(0...(DifferentialFixture.groupCount - 1)))
            let predicate = ObjectPredicate(format: generated.format, argumentArray: generated.arguments).withSubstitutionVariables(["G": group as Any])
            var sorts: [ObjectSortDescriptor] = []
            var limit = 0
            var offset = 0
            if index % 3 == 0 {
                for _ in 0..<random.int(1...3) {
                    let comparator = random.chance(0.8) ? ObjectSortDescriptor.Comparator.default : random.pick([.caseInsensitive, .localizedStandard])
                    sorts.append(ObjectSortDescriptor(key: random.pick(Self.sortKeys), ascending: random.chance(0.5), comparator: comparator))
                }
                if random.chance(0.6) { limit = random.int(1...40) }
                if random.chance(0.3) { offset = random.int(1...30) }
            }
            try fixture.check(predicate, sorts: sorts, limit: limit, offset: offset, label: "STRATA_DIFF_SEED=\(seed) #\(index): \(generated)", tally: &tally)
        }
        print("PostgreSQL compiler differential: \(tally)")
        #expect(tally.mismatches == 0, "\(tally)")
        // The compiler must take most predicates to SQL, or the store gains little.
        #expect(tally.exact * 2 > tally.checked, "\(tally)")
        #expect(tally.windowed > 0, "\(tally)")
    }
}

/// What the differential test saw.
struct PostgreSQLDifferentialTally: CustomStringConvertible {
    /// Requests checked (those the in-memory store could run).
    var checked = 0
    /// Requests whose predicate compiled exactly.
    var exact = 0
    /// Requests run entirely in SQL (exact predicate and exact sort, with the window).
    var windowed = 0
    /// Requests whose SQL selected a strict superset (finished in memory).
    var supersets = 0
    /// Requests the in-memory store refused (invalid predicates): not checked.
    var refused = 0
    /// Disagreements.
    var mismatches = 0

    var description: String {
        "\(checked) requests checked, \(exact) with an exact WHERE clause (\(windowed) run wholly in SQL with ORDER BY/LIMIT/OFFSET), "
            + "\(checked - exact) with a superset finished in memory (\(supersets) strictly larger), \(refused) refused by both, \(mismatches) mismatches"
    }
}

/// The differential fixture in an in-memory store and in PostgreSQL tables (see
/// ``PostgreSQLCompilerDifferentialTests``).
final class PostgreSQLDifferentialFixture {
    let model: ManagedObjectModel
    let stack: TestStack
    let context: ManagedObjectContext
    let connection: PostgreSQLConnection
    let schema: PostgreSQLSchema
    let item: EntityDescription
    private let storeIdentifier: String?
    private let idxByID: [ManagedObjectID: Int64]
    private let itemIDsByIdx: [Int64: ManagedObjectID]
    private let groupIDsByKey: [Int64: ManagedObjectID]

    init() throws {
        model = DifferentialFixture.model()
        let data = DifferentialFixture.data(seed: QueryRandom.seed(fromEnvironment: "STRATA_DIFF_SEED", default: DifferentialEngines.defaultSeed))
        stack = try TestStack(model: model, kind: .inMemory, recordsSQL: false)
        context = stack.newContext(name: "memory")
        let fixtureModel = model
        let context = self.context
        try context.performAndWait {
            try DifferentialFixture.populate(context, model: fixtureModel, data: data)
            try context.save()
        }
        storeIdentifier = stack.coordinator.persistentStores.first?.identifier
        guard let item = model.entitiesByName["Item"] else { throw StrataError(code: StrataError.Code.coreData, message: "no Item entity") }
        self.item = item
        var idxByID: [ManagedObjectID: Int64] = [:]
        var groups: [Int64: ManagedObjectID] = [:]
        try context.performAndWait {
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
                idxByID[object.objectID] = (object.value(forKey: "idx") as? Int64) ?? -1
            }
            let request = FetchRequest<ManagedObjectID>(entityName: "Group")
            request.resultType = .managedObjectIDResultType
            for id in try context.fetch(request) { groups[DifferentialEngines.primaryKey(id)] = id }
        }
        self.idxByID = idxByID
        self.itemIDsByIdx = Dictionary(idxByID.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        self.groupIDsByKey = groups
        // The stores give keys in insertion order, per entity: an item's key is its idx + 1.
        for (id, idx) in idxByID where DifferentialEngines.primaryKey(id) != idx + 1 {
            throw StrataError(code: StrataError.Code.coreData, message: "item \(idx) has key \(DifferentialEngines.primaryKey(id)), not idx + 1")
        }
        connection = try PostgreSQLTestServer.connect()
        let namespace = PostgreSQLTestServer.uniqueTableName("strata_compiler")
        schema = try PostgreSQLSchema(model: model, configurationName: nil, namespace: namespace)
        try Self.createTables(schema, on: connection)
        try Self.insert(data, schema: schema, on: connection)
    }

    /// Removes the test's namespace and everything in it.
    func dropNamespace() {
        _ = try? connection.execute("DROP SCHEMA \(schema.quotedNamespace) CASCADE")
    }

    /// The in-memory store's ID of the group with index `index` (key `index + 1`).
    func groupID(_ index: Int) -> ManagedObjectID? { groupIDsByKey[Int64(index + 1)] }

    /// The in-memory store's ID of the item with `idx`.
    func itemID(idx: Int64) -> ManagedObjectID? { itemIDsByIdx[idx] }

    /// The key of an ID of the in-memory store (what the PostgreSQL store's `referenceObject(for:)` gives).
    func key(of id: ManagedObjectID) -> Int64? {
        guard !id.isTemporaryID, id.storeIdentifier == storeIdentifier else { return nil }
        return DifferentialEngines.primaryKey(id)
    }

    /// Runs `predicate` both ways and records the outcome in `tally`.
    func check(_ predicate: ObjectPredicate, sorts: [ObjectSortDescriptor] = [], limit: Int = 0, offset: Int = 0, label: String, tally: inout PostgreSQLDifferentialTally) throws {
        guard let all = memoryAnswer(predicate, sorts: [], limit: 0, offset: 0) else {
            tally.refused += 1
            return
        }
        tally.checked += 1
        let compiled = PostgreSQLFetchCompiler.compile(
            entity: item, includesSubentities: true, predicate: predicate, sortDescriptors: sorts, schema: schema, tableAlias: "t", objectKey: { [self] in key(of: $0) })
        let selected: [Int64]
        do {
            selected = try run(compiled, window: nil)
        } catch {
            tally.mismatches += 1
            Issue.record("The compiled SQL fails (\(label))\n  WHERE \(compiled.whereClause)\n  parameters \(compiled.parameters)\n  error: \(error)")
            return
        }
        let expected = Set(all)
        let got = Set(selected)
        if compiled.predicateIsExact {
            tally.exact += 1
            if got != expected {
                tally.mismatches += 1
                let message: String =
                    "The exact WHERE clause disagrees with memory (\(label))\n  canonical: \(predicate)\n  WHERE \(compiled.whereClause)\n  parameters \(compiled.parameters)\n"
                    + "  only SQL: \(got.subtracting(expected).sorted().prefix(12))\n  only memory: \(expected.subtracting(got).sorted().prefix(12))"
                Issue.record("\(message)")
                return
            }
        } else {
            if !got.isSuperset(of: expected) {
                tally.mismatches += 1
                let message: String =
                    "The partial WHERE clause misses rows (\(label))\n  canonical: \(predicate)\n  WHERE \(compiled.whereClause)\n  parameters \(compiled.parameters)\n"
                    + "  missing: \(expected.subtracting(got).sorted().prefix(12))"
                Issue.record("\(message)")
                return
            }
            if got.count > expected.count { tally.supersets += 1 }
        }
        guard compiled.canWindowInSQL, !sorts.isEmpty || limit > 0 || offset > 0 else { return }
        tally.windowed += 1
        let window = memoryAnswer(predicate, sorts: sorts, limit: limit, offset: offset) ?? []
        let ordered = try run(compiled, window: (limit, offset))
        if ordered != window {
            tally.mismatches += 1
            let message: String =
                "ORDER BY/LIMIT/OFFSET disagree with memory (\(label))\n  sorts \(sorts) limit \(limit) offset \(offset)\n  ORDER BY \(compiled.orderBy ?? "-")\n"
                + "  SQL:    \(ordered.prefix(20))\n  memory: \(window.prefix(20))"
            Issue.record("\(message)")
        }
    }

    /// The idx of the items the in-memory store fetches, in order; nil when it refuses the request.
    private func memoryAnswer(_ predicate: ObjectPredicate, sorts: [ObjectSortDescriptor], limit: Int, offset: Int) -> [Int64]? {
        let idxByID = self.idxByID
        return context.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Item")
            request.resultType = .managedObjectIDResultType
            request.predicate = predicate
            request.sortDescriptors = sorts
            request.fetchLimit = limit
            request.fetchOffset = offset
            return (try? context.fetch(request))?.map { idxByID[$0] ?? -1 }
        }
    }

    /// The idx of the rows the compiled request selects (ordered and windowed when `window` is given).
    private func run(_ compiled: PostgreSQLCompiledFetch, window: (limit: Int, offset: Int)?) throws -> [Int64] {
        guard let table = schema.table(for: item), let idx = table.column(forKey: "idx", ofEntityNamed: item.name) else { return [] }
        var sql = "SELECT \"t\".\(try PostgreSQLSchema.quoted(idx)) FROM \(table.quotedName) AS \"t\" WHERE \(compiled.whereClause)"
        if let window, let orderBy = compiled.orderBy {
            sql += " ORDER BY \(orderBy)"
            if window.limit > 0 { sql += " LIMIT \(window.limit)" }
            if window.offset > 0 { sql += " OFFSET \(window.offset)" }
        }
        return try connection.execute(sql, parameters: compiled.parameters).map { try $0.int64(0) ?? -1 }
    }

    // MARK: Test-only DDL and rows

    /// The column type of each kind of column (the mapping the store uses).
    static func sqlType(_ kind: PostgreSQLColumn.Kind) -> String {
        switch kind {
        case .toOne: return "bigint"
        case .attribute(let type):
            switch type {
            case .integer16: return "smallint"
            case .integer32: return "integer"
            case .integer64: return "bigint"
            case .double, .date: return "double precision"
            case .float: return "real"
            case .decimal: return "numeric"
            case .boolean: return "boolean"
            case .uuid: return "uuid"
            case .binaryData, .transformable, .undefined: return "bytea"
            case .string, .uri, .objectID: return "text"
            }
        }
    }

    private static func createTables(_ schema: PostgreSQLSchema, on connection: PostgreSQLConnection) throws {
        var script = "CREATE SCHEMA \(schema.quotedNamespace);\n"
        for table in schema.tables {
            let columns = ["\"$pk\" bigint PRIMARY KEY", "\"$entity\" text NOT NULL", "\"$version\" bigint NOT NULL"] + table.columns.map { "\($0.quotedName) \(sqlType($0.kind))" }
            script += "CREATE TABLE \(table.quotedName) (\(columns.joined(separator: ", ")));\n"
        }
        for join in schema.joinTables {
            var columns = ["\"$owner\" bigint NOT NULL", "\"$member\" bigint NOT NULL"]
            if let position = join.memberPositionColumn { columns.append("\(try PostgreSQLSchema.quoted(position)) bigint") }
            if let position = join.ownerPositionColumn { columns.append("\(try PostgreSQLSchema.quoted(position)) bigint") }
            script += "CREATE TABLE \(join.quotedName) (\(columns.joined(separator: ", ")), PRIMARY KEY (\"$owner\", \"$member\"));\n"
        }
        _ = try connection.executeScript(script)
    }

    /// Inserts the fixture's rows with the keys the in-memory store gave them (index + 1).
    private static func insert(_ data: DifferentialFixture.Data, schema: PostgreSQLSchema, on connection: PostgreSQLConnection) throws {
        func optional<T>(_ value: T?, _ make: (T) -> PostgreSQLValue) -> PostgreSQLValue { value.map(make) ?? .null }
        func key(_ index: Int?) -> PostgreSQLValue { index.map { .int64(Int64($0 + 1)) } ?? .null }
        func decimal(_ value: Decimal) -> PostgreSQLValue { .text("\(value)") }
        var tagOwner: [Int: Int] = [:]
        for (index, item) in data.items.enumerated() { for tag in item.tags { tagOwner[tag] = index } }
        try insert(
            "Region", keys: ["name", "code"], schema: schema, connection: connection,
            rows: data.regions.map { [optional($0.name) { .text($0) }, optional($0.code) { .int64(Int64($0)) }] })
        try insert(
            "Group", keys: ["name", "rank", "score", "region"], schema: schema, connection: connection,
            rows: data.groups.map { [optional($0.name) { .text($0) }, optional($0.rank) { .int64($0) }, optional($0.score) { .double($0) }, key($0.region)] })
        try insert(
            "Item", keys: ["idx", "i16", "i32", "i64", "dbl", "flt", "dec", "str", "alt", "flag", "day", "group"], schema: schema, connection: connection,
            rows: data.items.map { item in
                [
                    .int64(item.idx), optional(item.i16) { .int64(Int64($0)) }, optional(item.i32) { .int64(Int64($0)) }, optional(item.i64) { .int64($0) },
                    optional(item.dbl) { .double($0) }, optional(item.flt) { .double(Double($0)) }, optional(item.dec, decimal), optional(item.str) { .text($0) },
                    optional(item.alt) { .text($0) }, optional(item.flag) { .bool($0) }, optional(item.day) { .double($0.timeIntervalSinceReferenceDate) }, key(item.group),
                ]
            })
        try insert(
            "Tag", keys: ["label", "weight", "ratio", "amount", "item"], schema: schema, connection: connection,
            rows: data.tags.enumerated().map { index, tag in
                [optional(tag.label) { .text($0) }, optional(tag.weight) { .int64($0) }, optional(tag.ratio) { .double($0) }, optional(tag.amount, decimal), key(tagOwner[index])]
            })
        // Item.links ⇄ Tag.linkedBy, a many-to-many: its join table's owner side is the canonical one.
        guard let links = schema.joinTables.first else { return }
        let itemOwns = links.ownerTable == "Item"
        var pairs: [[PostgreSQLValue]] = []
        for (index, item) in data.items.enumerated() {
            for tag in item.links.sorted() {
                let itemKey = PostgreSQLValue.int64(Int64(index + 1))
                let tagKey = PostgreSQLValue.int64(Int64(tag + 1))
                pairs.append(itemOwns ? [itemKey, tagKey] : [tagKey, itemKey])
            }
        }
        try insertRows(into: links.quotedName, columns: ["\"$owner\"", "\"$member\""], rows: pairs, connection: connection)
    }

    /// Inserts rows of `entityName` (keys index + 1) with the values of `keys`.
    private static func insert(_ entityName: String, keys: [String], schema: PostgreSQLSchema, connection: PostgreSQLConnection, rows: [[PostgreSQLValue]]) throws {
        guard let table = schema.table(forEntityNamed: entityName) else { throw StrataError(code: StrataError.Code.coreData, message: "no table for \(entityName)") }
        let columns = try ["\"$pk\"", "\"$entity\"", "\"$version\""] + keys.map { try PostgreSQLSchema.quoted(table.column(forKey: $0, ofEntityNamed: entityName) ?? $0) }
        let full = rows.enumerated().map { index, values in [PostgreSQLValue.int64(Int64(index + 1)), .text(entityName), .int64(1)] + values }
        try insertRows(into: table.quotedName, columns: columns, rows: full, connection: connection)
    }

    /// Multi-row INSERTs of up to 200 rows each.
    private static func insertRows(into table: String, columns: [String], rows: [[PostgreSQLValue]], connection: PostgreSQLConnection) throws {
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(rows.count, start + 200)]
            var parameters: [PostgreSQLValue] = []
            var tuples: [String] = []
            for row in batch {
                var placeholders: [String] = []
                for value in row {
                    parameters.append(value)
                    placeholders.append("$\(parameters.count)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            _ = try connection.execute("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))", parameters: parameters)
            start += 200
        }
    }
}
