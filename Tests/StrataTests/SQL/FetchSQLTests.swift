import Foundation
import Testing

@testable import Strata

/// The exact SQL of each kind of read, from the schema mapping and fetch plans alone (no
/// database): what `SQLiteStore+Fetch.swift` and `SQLiteStore+Dictionaries.swift` prepare, bind
/// and step. Values are always bindings, never text.
@Suite("Fetch SQL")
struct FetchSQLTests {
    let library: LibraryModel
    let statements: FetchStatements

    init() throws {
        library = try LibraryModel()
        statements = FetchStatements(schema: library.schema)
    }

    /// Every column of ZBOOK, in the order `SQLiteSchema.EntityColumns` indexes them. Book has no
    /// sub-entities, so its table holds Books only: its code is selected as a constant where
    /// `Z_ENT` would be, as Core Data's SQLite store selects `0` there (`SELECT 0, t0.Z_PK,
    /// t0.Z_OPT, …` in its SQL debug log).
    var bookColumns: String {
        #"t0.Z_PK, \#(library.book.layout.code) AS Z_ENT, t0.Z_OPT, t0."ZTITLE", t0."ZPRICE", t0."ZPUBLISHED", t0."ZAUTHOR", t0."ZEDITOR", t0."ZEDITOR_ENT""#
    }
    /// Every column of ZPERSON: the root's, then each sub-entity's (by name).
    static let personColumns = #"t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0."ZNAME", t0."ZRATING", t0."ZLEVEL""#

    @Test("rows: every column, predicate, sort, then LIMIT and OFFSET as bindings")
    func rowsWithPredicateSortLimitOffset() throws {
        // A row read selects Z_PK, Z_ENT, Z_OPT and every column of the table, so one decoder
        // serves every entity of an inheritance tree. A to-one key path is a LEFT JOIN; equality
        // is null-safe (IS); the order ends with Z_PK so it is total (pages never overlap);
        // fetchLimit / fetchOffset are LIMIT / OFFSET, so their cost follows the limit.
        let plan = try library.plan(library.book, "author.name == %@", ["Ann"], sortedBy: [ObjectSortDescriptor(key: "title", ascending: false)], limit: 10, offset: 20)
        let sql = try statements.rows(plan)
        #expect(
            sql.text
                == "SELECT \(bookColumns) FROM \"ZBOOK\" t0 LEFT JOIN \"ZPERSON\" j1 ON j1.Z_PK = t0.\"ZAUTHOR\" WHERE (j1.\"ZNAME\" IS ?) ORDER BY t0.\"ZTITLE\" DESC, t0.Z_PK ASC LIMIT ? OFFSET ?"
        )
        #expect(sql.bindings == [.text("Ann"), .integer(10), .integer(20)])

        // An offset without a limit: LIMIT -1 is SQLite's "no limit".
        let offsetOnly = try statements.rows(try library.plan(library.book, offset: 5))
        #expect(offsetOnly.text == "SELECT \(bookColumns) FROM \"ZBOOK\" t0 ORDER BY t0.Z_PK ASC LIMIT ? OFFSET ?")
        #expect(offsetOnly.bindings == [.integer(-1), .integer(5)])
    }

    @Test("IDs: only Z_PK and Z_ENT, the same WHERE and ORDER BY")
    func objectIDs() throws {
        // An ID is the primary key and the entity code (which entity of the tree the row is); a
        // table of one entity gives its code as a constant (see `bookColumns`).
        let plan = try library.plan(library.book, "price > %@", [Decimal(12)], sortedBy: [ObjectSortDescriptor(key: "title", ascending: true)], resultKind: .objectIDs)
        let sql = try statements.objectIDs(plan)
        #expect(
            sql.text
                == #"SELECT t0.Z_PK, \#(library.book.layout.code) AS Z_ENT FROM "ZBOOK" t0 WHERE (t0."ZPRICE" IS NOT NULL AND t0."ZPRICE" COLLATE STRATA_DECIMAL > ?) ORDER BY t0."ZTITLE" ASC, t0.Z_PK ASC"#
        )
        // A decimal is stored as canonical text and compared with Strata's decimal collation.
        #expect(sql.bindings == [.text("12")])
    }

    @Test("count: count(*) unordered, or the count of the limited SELECT")
    func counts() throws {
        // Without limit and offset the order cannot change a count: no ORDER BY.
        let plain = try statements.count(try library.plan(library.chapter, "title == %@", ["Intro"], resultKind: .count))
        #expect(plain.text == #"SELECT count(*) FROM "ZCHAPTER" t0 WHERE (t0."ZTITLE" IS ?)"#)
        #expect(plain.bindings == [.text("Intro")])
        // With a limit or an offset (Core Data's countForFetchRequest honours them) the count is
        // of the page, so the ordered, limited SELECT is counted.
        let paged = try statements.count(try library.plan(library.chapter, limit: 3, offset: 1, resultKind: .count))
        #expect(paged.text == #"SELECT count(*) FROM (SELECT 1 FROM "ZCHAPTER" t0 ORDER BY t0.Z_PK ASC LIMIT ? OFFSET ?)"#)
        #expect(paged.bindings == [.integer(3), .integer(1)])
    }

    @Test("sub-entities: a whole tree reads its table; anything less filters on Z_ENT")
    func subentities() throws {
        // One table per inheritance root (Core Data's layout): Person with its sub-entities is
        // the whole of ZPERSON, so no filter; Person alone (code 5), or Author (code 1), is a
        // filter on the entity code, which is indexed.
        let tree = try statements.objectIDs(try library.plan(library.person, resultKind: .objectIDs))
        #expect(tree.text == #"SELECT t0.Z_PK, t0.Z_ENT FROM "ZPERSON" t0 ORDER BY t0.Z_PK ASC"#)
        let personOnly = try statements.objectIDs(try library.plan(library.person, includesSubentities: false, resultKind: .objectIDs))
        #expect(personOnly.text == #"SELECT t0.Z_PK, t0.Z_ENT FROM "ZPERSON" t0 WHERE t0.Z_ENT IN (5) ORDER BY t0.Z_PK ASC"#)
        let authors = try statements.rows(try library.plan(library.author, "rating >= %@", [4.5]))
        #expect(
            authors.text
                == "SELECT \(Self.personColumns) FROM \"ZPERSON\" t0 WHERE t0.Z_ENT IN (1) AND (t0.\"ZRATING\" IS NOT NULL AND typeof(t0.\"ZRATING\") IN ('integer', 'real') AND t0.\"ZRATING\" >= ?) ORDER BY t0.Z_PK ASC"
        )
        #expect(authors.bindings == [.real(4.5)])
        // An entity code is a number, not a value: it is part of the text (one statement per
        // entity, cached like any other).
        #expect(try statements.rows(library.plan(library.editor)).bindings.isEmpty)
    }

    @Test("rows by key: a batch of faults is one statement with a JSON key list")
    func rowsByKeys() throws {
        // Faults are fulfilled a batch at a time: the keys are one binding (a JSON array read
        // with json_each), so the text is the same for any number of keys and stays cached.
        #expect(statements.rowsByKeys(inTable: "ZPERSON") == "SELECT \(Self.personColumns) FROM \"ZPERSON\" t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))")
        #expect(FetchStatements.keyList([3, 1, 2]) == .text("[3,1,2]"))
        // A save reads the stored row of a conflict by its key.
        #expect(statements.rowByKey(inTable: "ZBOOK") == "SELECT \(bookColumns) FROM \"ZBOOK\" t0 WHERE t0.Z_PK = ?")
        #expect(statements.rowsByKeys(inTable: "ZNOTHING") == nil)
    }

    @Test("to-many contents: owner key, member key, member entity code, in order")
    func toManyContents() throws {
        func contents(_ name: String, of entity: EntityDescription) throws -> String? {
            statements.toManyContents(of: try library.relationship(name, of: entity))
        }
        // A one-to-many is the inverse's foreign key on the members' table (no join table).
        #expect(
            try contents("books", of: library.author)
                == #"SELECT "ZAUTHOR", Z_PK, Z_ENT FROM "ZBOOK" WHERE "ZAUTHOR" IN (SELECT value FROM json_each(?)) ORDER BY "ZAUTHOR", Z_PK"#)
        #expect(
            try contents("edited", of: library.person)
                == #"SELECT "ZEDITOR", Z_PK, Z_ENT FROM "ZBOOK" WHERE "ZEDITOR" IN (SELECT value FROM json_each(?)) ORDER BY "ZEDITOR", Z_PK"#)
        // An ordered one-to-many is read in its members' position order (Z_FOK_BOOK).
        #expect(
            try contents("chapters", of: library.book)
                == #"SELECT "ZBOOK", Z_PK, Z_ENT FROM "ZCHAPTER" WHERE "ZBOOK" IN (SELECT value FROM json_each(?)) ORDER BY "ZBOOK", "Z_FOK_BOOK", Z_PK"#)
        // A many-to-many reads its join table from either side, joined to the members' table
        // for their entity codes (and so that pairs of deleted rows never show).
        #expect(
            try contents("tags", of: library.book)
                == #"SELECT j.Z_SOURCE, j.Z_TARGET, d.Z_ENT FROM "Z_BOOK_TAGS" j JOIN "ZTAG" d ON d.Z_PK = j.Z_TARGET WHERE j.Z_SOURCE IN (SELECT value FROM json_each(?)) ORDER BY j.Z_SOURCE, j.Z_TARGET"#
        )
        #expect(
            try contents("books", of: library.tag)
                == #"SELECT j.Z_TARGET, j.Z_SOURCE, d.Z_ENT FROM "Z_BOOK_TAGS" j JOIN "ZBOOK" d ON d.Z_PK = j.Z_SOURCE WHERE j.Z_TARGET IN (SELECT value FROM json_each(?)) ORDER BY j.Z_TARGET, j.Z_SOURCE"#
        )
        // An ordered many-to-many is in Z_ORDER order from its ordered (owning) side only.
        #expect(
            try contents("books", of: library.shelf)
                == #"SELECT j.Z_SOURCE, j.Z_TARGET, d.Z_ENT FROM "Z_SHELF_BOOKS" j JOIN "ZBOOK" d ON d.Z_PK = j.Z_TARGET WHERE j.Z_SOURCE IN (SELECT value FROM json_each(?)) ORDER BY j.Z_SOURCE, j.Z_ORDER, j.Z_TARGET"#
        )
        #expect(
            try contents("shelves", of: library.book)
                == #"SELECT j.Z_TARGET, j.Z_SOURCE, d.Z_ENT FROM "Z_SHELF_BOOKS" j JOIN "ZSHELF" d ON d.Z_PK = j.Z_SOURCE WHERE j.Z_TARGET IN (SELECT value FROM json_each(?)) ORDER BY j.Z_TARGET, j.Z_SOURCE"#
        )
    }

    @Test("a dictionary fetch is one SELECT: columns, GROUP BY, HAVING, ORDER BY, LIMIT")
    func dictionaryFetch() throws {
        // Aggregates run in SQLite: COUNT/MIN/MAX are SQL's, sums and averages Strata's
        // registered aggregates (strata_dsum for decimals: exact), the same Swift code the
        // in-memory engine runs. An object column is its key and the joined row's entity code.
        // HAVING compares result columns; grouped rows come in group-key order, so the result
        // is the same on every run and in both engines.
        let request = FetchRequest<NSDictionary>(entityName: "Book")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = [
            "author",
            ExpressionDescription(name: "total", expression: try ObjectExpression(validatingFormat: "sum:(price)")),
            ExpressionDescription(name: "books", expression: try ObjectExpression(validatingFormat: "count:(title)")),
        ]
        request.propertiesToGroupBy = ["author"]
        request.havingPredicate = ObjectPredicate(format: "books > %@", 2)
        request.predicate = ObjectPredicate(format: "published != nil")
        request.fetchLimit = 5
        let plan = try DictionaryPlan.make(request, entity: library.book)
        let (sql, reads) = try DictionarySQLCompiler(schema: library.schema, plan: plan).compile()
        #expect(
            sql.text
                == #"SELECT t0."ZAUTHOR", MIN(j1.Z_ENT), strata_dsum(t0."ZPRICE"), COUNT(t0."ZTITLE") FROM "ZBOOK" t0 LEFT JOIN "ZPERSON" j1 ON j1.Z_PK = t0."ZAUTHOR" WHERE (t0."ZPUBLISHED" IS NOT NULL) GROUP BY t0."ZAUTHOR" HAVING (COUNT(t0."ZTITLE") IS NOT NULL AND COUNT(t0."ZTITLE") > ?) ORDER BY t0."ZAUTHOR" ASC LIMIT ? OFFSET ?"#
        )
        #expect(sql.bindings == [.integer(2), .integer(5), .integer(0)])
        #expect(reads.count == 3)
    }
}
