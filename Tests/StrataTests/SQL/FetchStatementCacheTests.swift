import Foundation
import Testing

@testable import Strata

/// The compiled SELECT of each shape of fetch plan is cached (`FetchStatementCache`): a cached
/// statement is the one the compiler writes — the same text, the same bindings — for every
/// shape, whatever the values, and the cache stays bounded.
@Suite("Fetch statement cache")
struct FetchStatementCacheTests {
    let library: LibraryModel
    let cached: FetchStatements
    let uncached: FetchStatements

    init() throws {
        library = try LibraryModel()
        cached = FetchStatements(schema: library.schema)
        uncached = FetchStatements(schema: library.schema, cachesShapes: false)
    }

    /// One fetch: a plan and the statement it is compiled into.
    struct Case {
        var entity: EntityDescription
        var format: String?
        var arguments: [Any] = []
        var sorts: [ObjectSortDescriptor] = []
        var limit = 0
        var offset = 0
        var includesSubentities = true
        var kind: FetchStatementKind = .rows
    }

    /// The statement of `fetch` from `statements`.
    func statement(_ fetch: Case, _ statements: FetchStatements) throws -> SQLFragment {
        let resultKind: FetchPlan.ResultKind = fetch.kind == .rows ? .rows : (fetch.kind == .objectIDs ? .objectIDs : .count)
        let plan = try library.plan(
            fetch.entity, fetch.format, fetch.arguments, sortedBy: fetch.sorts, limit: fetch.limit, offset: fetch.offset,
            includesSubentities: fetch.includesSubentities, resultKind: resultKind)
        switch fetch.kind {
        case .rows: return try statements.rows(plan)
        case .objectIDs: return try statements.objectIDs(plan)
        case .count: return try statements.count(plan)
        }
    }

    /// Expects the cached statement of `fetch` to be the compiler's, twice (a miss, then a hit).
    func expectSame(_ fetch: Case, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try statement(fetch, uncached)
        for _ in 0..<2 {
            let got = try statement(fetch, cached)
            #expect(got.text == expected.text, "\(fetch.format ?? "no predicate") \(fetch.arguments)", sourceLocation: sourceLocation)
            #expect(got.bindings.count == expected.bindings.count, sourceLocation: sourceLocation)
            let same = zip(got.bindings, expected.bindings).allSatisfy { $0.isIdentical(to: $1) }
            #expect(same, "\(got.bindings) != \(expected.bindings)", sourceLocation: sourceLocation)
        }
    }

    @Test("cached statements equal compiled ones across shapes and values")
    func cachedEqualsCompiled() throws {
        // Core Data: a fetch request's predicate values, limit and offset are the request's own;
        // reusing the statement of an earlier request of the same shape must not change them.
        let book = library.book
        let saved = library.id(library.author, 3)
        let other = library.id(library.author, 4)
        let unsaved = ManagedObjectID(temporaryForEntityIdentity: library.author)
        var cases: [Case] = []
        // Equality: a value, another value, nil (IS NULL), a value again.
        for value in ["A", "B", nil, "A"] as [String?] {
            cases.append(Case(entity: book, format: "title == %@", arguments: [value as Any]))
            cases.append(Case(entity: book, format: "title != %@", arguments: [value as Any]))
        }
        // Lists of different lengths, with NULL, and empty.
        for list in [["a"], ["a", "b"], ["a", "b", "c"], [], ["a", NSNull()], [NSNull()]] as [[Any]] {
            cases.append(Case(entity: book, format: "title IN %@", arguments: [list]))
        }
        // Options: case, diacritics, none; LIKE and MATCHES.
        for format in ["title BEGINSWITH %@", "title BEGINSWITH[c] %@", "title BEGINSWITH[cd] %@", "title ==[c] %@", "title LIKE[d] %@", "title MATCHES %@", "title CONTAINS %@"] {
            cases.append(Case(entity: book, format: format, arguments: ["é"]))
            cases.append(Case(entity: book, format: format, arguments: ["x*"]))
        }
        // The same text on different entities and trees.
        cases.append(Case(entity: library.chapter, format: "title == %@", arguments: ["A"]))
        cases.append(Case(entity: library.person, format: "name == %@", arguments: ["Ann"]))
        cases.append(Case(entity: library.person, format: "name == %@", arguments: ["Ann"], includesSubentities: false))
        cases.append(Case(entity: library.author, format: "name == %@", arguments: ["Ann"]))
        cases.append(Case(entity: library.editor, format: "name == %@", arguments: ["Bob"]))
        // Objects: saved, unsaved (matches no row), nil; in lists.
        for id in [saved, other, unsaved, nil] as [ManagedObjectID?] {
            cases.append(Case(entity: book, format: "author == %@", arguments: [id as Any]))
            cases.append(Case(entity: book, format: "author != %@", arguments: [id as Any]))
        }
        for ids in [[saved], [saved, other], [saved, unsaved], [unsaved]] {
            cases.append(Case(entity: book, format: "author IN %@", arguments: [ids]))
        }
        // Orderings, numbers and decimals, BETWEEN with and without NULL, mixed types.
        for value in [Decimal(12), Decimal(string: "13.5") ?? 0] {
            cases.append(Case(entity: book, format: "price > %@", arguments: [value]))
        }
        cases.append(Case(entity: book, format: "price > %@", arguments: [NSNull()]))
        cases.append(Case(entity: library.author, format: "rating < %@", arguments: [4.5]))
        cases.append(Case(entity: library.author, format: "rating < %@", arguments: [Double.nan]))
        cases.append(Case(entity: library.author, format: "rating < %@", arguments: [NSNull()]))
        cases.append(Case(entity: library.author, format: "rating BETWEEN %@", arguments: [[1, 5]]))
        cases.append(Case(entity: library.author, format: "rating BETWEEN %@", arguments: [[2.5, 3]]))
        cases.append(Case(entity: library.author, format: "rating BETWEEN %@", arguments: [[NSNull(), 3]]))
        cases.append(Case(entity: library.editor, format: "level >= %d AND level < %d", arguments: [1, 9]))
        // Joins, to-manys, SUBQUERY, aggregates, compounds.
        cases.append(Case(entity: book, format: "author.name == %@ AND (price < %@ OR title LIKE %@)", arguments: ["Ann", 3, "a*"]))
        cases.append(Case(entity: book, format: "ANY tags.label == %@", arguments: ["x"]))
        cases.append(Case(entity: book, format: "ANY tags.label == %@", arguments: ["y"]))
        cases.append(Case(entity: book, format: "NONE chapters.title BEGINSWITH %@", arguments: ["I"]))
        cases.append(Case(entity: book, format: "SUBQUERY(chapters, $c, $c.title BEGINSWITH %@).@count > %d", arguments: ["a", 1]))
        cases.append(Case(entity: book, format: "SUBQUERY(chapters, $c, $c.title BEGINSWITH %@).@count > %d", arguments: ["b", 2]))
        cases.append(Case(entity: book, format: "chapters.@count > %d OR NOT (title == %@)", arguments: [1, "t"]))
        cases.append(Case(entity: book, format: "TRUEPREDICATE"))
        // Sorts, limits, offsets and the three kinds of statement.
        for (limit, offset) in [(0, 0), (1, 0), (10, 20), (0, 5), (1, 0)] {
            for kind in [FetchStatementKind.rows, .objectIDs, .count] {
                cases.append(Case(entity: book, format: "title == %@", arguments: ["T\(limit)"], limit: limit, offset: offset, kind: kind))
                cases.append(
                    Case(
                        entity: book, format: "price > %@", arguments: [limit], sorts: [ObjectSortDescriptor(key: "title", ascending: limit == 0)],
                        limit: limit, offset: offset, kind: kind))
            }
        }
        cases.append(Case(entity: book, format: nil, sorts: [ObjectSortDescriptor(key: "author.name", ascending: true)]))
        for fetch in cases { try expectSame(fetch) }
        #expect(cached.cachedShapeCount > 10)
    }

    @Test("a hit binds the new values; nil and a value are different shapes")
    func hitsAndShapes() throws {
        // Core Data compares with nil as IS NULL, a value as equality: two different statements,
        // each reused for its own kind of value.
        let first = try statement(Case(entity: library.book, format: "title == %@", arguments: ["A"]), cached)
        let second = try statement(Case(entity: library.book, format: "title == %@", arguments: ["B"]), cached)
        #expect(cached.cachedShapeCount == 1)
        #expect(second.text == first.text)
        #expect(second.bindings == [.text("B")])
        let none = try statement(Case(entity: library.book, format: "title == %@", arguments: [NSNull()]), cached)
        #expect(cached.cachedShapeCount == 2)
        #expect(none.text.contains(#"WHERE (t0."ZTITLE" IS NULL)"#))
        #expect(none.bindings.isEmpty)
        // The same predicate text on another entity is another shape (another table).
        let chapter = try statement(Case(entity: library.chapter, format: "title == %@", arguments: ["B"]), cached)
        #expect(cached.cachedShapeCount == 3)
        #expect(chapter.text.contains(#"FROM "ZCHAPTER""#))
    }

    @Test("common shapes have a recipe (they are served from the cache, not recompiled)")
    func recipes() throws {
        // Core Data's lookups by key, ranges, lists, joins and pages are the requests an app
        // repeats: each must be reusable, not just correct.
        let shapes: [(String, [Any], Int, Int)] = [
            ("title == %@", ["A"], 1, 0), ("title == %@", [NSNull()], 0, 0), ("price > %@ AND price < %@", [1, 2], 100, 0),
            ("title IN %@", [["a", "b"]], 0, 0), ("author == %@", [library.id(library.author, 1)], 0, 10),
            ("author.name BEGINSWITH[cd] %@", ["é"], 0, 0), ("ANY tags.label == %@", ["x"], 0, 0),
        ]
        for (format, arguments, limit, offset) in shapes {
            let plan = try library.plan(library.book, format, arguments, limit: limit, offset: offset)
            let compiled = try uncached.rows(plan)
            var walker = FetchShapeWalker(marking: false)
            _ = walker.walk(plan, kind: .rows)
            let recipe = try FetchStatementCache.recipe(plan, kind: .rows, compiled: compiled, constants: walker.constants) { try uncached.rows($0) }
            #expect(recipe != nil, "\(format)")
        }
    }

    @Test("the cache holds a bounded number of shapes")
    func bounded() throws {
        // A store serves any number of distinct requests (Core Data's statement cache is
        // bounded too): past its capacity the cache starts again instead of growing.
        let cache = FetchStatementCache(model: library.model, capacity: 4)
        for length in 1...20 {
            let list = (0..<length).map { "v\($0)" }
            let plan = try library.plan(library.book, "title IN %@", [list])
            let compile = { (plan: FetchPlan) in try uncached.rows(plan) }
            let got = try cache.statement(plan, kind: .rows, compile: compile)
            let expected = try uncached.rows(plan)
            #expect(got.text == expected.text)
            #expect(got.bindings == expected.bindings)
            #expect(cache.count <= 4)
        }
    }

    @Test("plans with many constants are compiled without the cache")
    func manyConstants() throws {
        // Core Data fetches by long ID or key lists (`self IN %@`); each list length would be a
        // shape of its own, so such plans skip the cache instead of filling it.
        let list = (0...FetchStatementCache.mostConstants).map { "v\($0)" }
        let plan = try library.plan(library.book, "title IN %@", [list])
        #expect(try cached.rows(plan).bindings == (try uncached.rows(plan)).bindings)
        #expect(cached.cachedShapeCount == 0)
    }

    @Test("plans of another model's entities are compiled without the cache")
    func otherModel() throws {
        // A store serves the model it was opened with; an entity of another model (even of the
        // same name) is never confused with one of its own: it has no table here.
        let other = try LibraryModel()
        let plan = try other.plan(other.book, "title == %@", ["A"])
        #expect(throws: StrataError.self) { try cached.rows(plan) }
        #expect(cached.cachedShapeCount == 0)
    }
}
