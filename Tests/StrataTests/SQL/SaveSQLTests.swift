import Foundation
import StrataSQLite
import Testing

@testable import Strata

/// The exact SQL of a save, from the schema mapping alone (no database): what
/// `SQLiteStore+Save.swift` prepares, binds and steps. The statement cache is keyed by this
/// text, so a change to it is a change to what every save runs.
@Suite("Save SQL")
struct SaveSQLTests {
    let library: LibraryModel
    let statements: SaveStatements

    init() throws {
        library = try LibraryModel()
        statements = SaveStatements(schema: library.schema)
    }

    @Test("a save is one BEGIN IMMEDIATE transaction")
    func beginImmediate() {
        // In WAL mode a DEFERRED transaction that reads and then writes fails with SQLITE_BUSY
        // at once, ignoring the busy timeout, when another connection wrote in between (7,554
        // of 8,000 read-modify-write saves from 4 processes did); IMMEDIATE takes the write
        // lock up front and waits for it (0 failures). So every write transaction is IMMEDIATE.
        // (The transaction control statements are the SQLite layer's; the kind is the store's.)
        #expect(SQLiteStore.writeTransaction == .immediate)
        #expect(SQLiteStore.writeTransaction.beginStatement == "BEGIN IMMEDIATE TRANSACTION")
    }

    @Test("primary keys come from Z_PRIMARYKEY in the save's transaction")
    func keyAllocation() {
        // Core Data keeps the last key handed out per entity in Z_PRIMARYKEY.Z_MAX; Strata counts
        // per inheritance root (one table, one key space), binds (count, root code) and reads the
        // new maximum back with RETURNING, so n keys cost one statement. Inside the save's
        // transaction, keys are only used up by saves that commit.
        #expect(SaveStatements.allocatePrimaryKeys == "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX")
    }

    @Test("an INSERT per entity: Z_PK, Z_ENT, Z_OPT, attributes by slot, then to-one keys")
    func inserts() {
        // Core Data's layout: one table per inheritance root, so Person, Author and Editor all
        // insert into ZPERSON, each naming only its own columns (the rest stay NULL). Z_ENT says
        // which entity a row is; Z_OPT starts at 1. A to-one is a foreign-key column; one whose
        // destination has sub-entities (Book.editor → Person) stores the entity code beside it.
        // Membership of to-manys is not in the INSERT: it is the other side's foreign key, a join
        // table row, or (Z_FOK_BOOK) a position written after the inserts.
        let expected: [(EntityDescription, String)] = [
            (library.person, #"INSERT INTO "ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME") VALUES (?, ?, ?, ?)"#),
            (library.author, #"INSERT INTO "ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZRATING") VALUES (?, ?, ?, ?, ?)"#),
            (library.editor, #"INSERT INTO "ZPERSON" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME", "ZLEVEL") VALUES (?, ?, ?, ?, ?)"#),
            (
                library.book,
                #"INSERT INTO "ZBOOK" ("Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZPRICE", "ZPUBLISHED", "ZAUTHOR", "ZEDITOR", "ZEDITOR_ENT") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"#
            ),
            (library.chapter, #"INSERT INTO "ZCHAPTER" ("Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZBOOK") VALUES (?, ?, ?, ?, ?)"#),
            (library.tag, #"INSERT INTO "ZTAG" ("Z_PK", "Z_ENT", "Z_OPT", "ZLABEL") VALUES (?, ?, ?, ?)"#),
            (library.shelf, #"INSERT INTO "ZSHELF" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME") VALUES (?, ?, ?, ?)"#),
        ]
        for (entity, sql) in expected {
            #expect(statements.insert(entity) == sql, "\(entity.name)")
        }
        #expect(statements.insert(EntityDescription(name: "Elsewhere")) == nil)
    }

    @Test("a chunk of inserts: INSERT OR FAIL of 16 rows, fewer for a wide entity, none when two rows exceed 999 parameters")
    func insertChunks() throws {
        // The rows of one statement, each with the single-row INSERT's columns and parameters.
        // OR FAIL: SQLite keeps no statement journal for it (a plain multi-row INSERT does, to
        // undo its own rows); a failed save rolls its whole transaction back instead.
        let chunk = try #require(statements.insertChunk(library.tag))
        let row = "(?, ?, ?, ?)"
        #expect(chunk.rows == 16)
        #expect(chunk.sql == #"INSERT OR FAIL INTO "ZTAG" ("Z_PK", "Z_ENT", "Z_OPT", "ZLABEL") VALUES "# + Array(repeating: row, count: 16).joined(separator: ", "))
        #expect(statements.insertChunk(EntityDescription(name: "Elsewhere")) == nil)
        // Z_PK, Z_ENT, Z_OPT and n attributes: 999 / (n + 3) rows.
        func wide(_ attributes: Int) -> (sql: String, rows: Int)? {
            let entity = EntityDescription(name: "Wide")
            entity.properties = (0..<attributes).map { AttributeDescription(name: "a\($0)", type: .integer64) }
            let model = ManagedObjectModel(entities: [entity])
            return SaveStatements(schema: SQLiteSchema(model: model)).insertChunk(entity)
        }
        #expect(wide(97)?.rows == 9)
        #expect(wide(496)?.rows == 2)
        #expect(wide(497) == nil)
    }

    @Test("an UPDATE writes only the changed columns, guarded by the row version Z_OPT")
    func updateWithVersionGuard() throws {
        // Optimistic locking as in Core Data: the row is written only if Z_OPT is still the
        // version the context read, and Z_OPT goes up by one; no row changed means someone else
        // saved first (a merge conflict), one row changed means the new version is the read one
        // plus 1, so no RETURNING is needed. Values are bindings (the store binds each row's
        // values into the statement of its shape, built once per shape).
        let title = try library.attributeSlot("title", of: library.book)
        let editor = try library.toOneSlot("editor", of: library.book)
        let sql = try #require(statements.update(library.book, changedAttributeSlots: [title], changedToOneSlots: [editor], checkingVersion: true))
        // The editor's destination has sub-entities: its key and its entity code.
        #expect(sql == #"UPDATE "ZBOOK" SET "ZTITLE" = ?, "ZEDITOR" = ?, "ZEDITOR_ENT" = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"#)

        // A merge policy that lets the object win writes whatever the version, and reads the
        // new version back.
        let overwrite = try #require(statements.update(library.book, changedAttributeSlots: [], changedToOneSlots: [editor], checkingVersion: false))
        #expect(overwrite == #"UPDATE "ZBOOK" SET "ZEDITOR" = ?, "ZEDITOR_ENT" = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? RETURNING Z_OPT"#)

        // A sub-entity updates the shared table with its own columns.
        let level = try library.attributeSlot("level", of: library.editor)
        let promoted = try #require(statements.update(library.editor, changedAttributeSlots: [level], changedToOneSlots: [], checkingVersion: true))
        #expect(promoted == #"UPDATE "ZPERSON" SET "ZLEVEL" = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"#)
        // Slots the entity does not have are left out; an unknown entity has no UPDATE.
        #expect(statements.update(library.editor, changedAttributeSlots: [level, 99], changedToOneSlots: [99], checkingVersion: true) == promoted)
        #expect(statements.update(EntityDescription(name: "Elsewhere"), changedAttributeSlots: [], changedToOneSlots: [], checkingVersion: true) == nil)
    }

    @Test("a DELETE is guarded by Z_OPT unless the object wins")
    func deletes() {
        // The same optimistic locking as updates: no row deleted means a conflict.
        #expect(statements.delete(library.book, checkingVersion: true) == #"DELETE FROM "ZBOOK" WHERE Z_PK = ? AND Z_OPT = ?"#)
        #expect(statements.delete(library.book, checkingVersion: false) == #"DELETE FROM "ZBOOK" WHERE Z_PK = ?"#)
        #expect(statements.delete(library.author, checkingVersion: true) == #"DELETE FROM "ZPERSON" WHERE Z_PK = ? AND Z_OPT = ?"#)
    }

    @Test("a many-to-many writes and removes join-table pairs")
    func joinTableWrites() throws {
        // Core Data keeps a many-to-many in a join table Z_<ROOT>_<REL>(Z_SOURCE, Z_TARGET) with
        // that pair as primary key; one side owns it (Book.tags: first by entity and name), and
        // only the owner's changes write it, so each pair is written once. Adding a pair already
        // there is not an error (INSERT OR IGNORE). A deleted object's pairs go with it, on
        // whichever side it is.
        let storage = try #require(library.schema.storage(of: try library.relationship("tags", of: library.book)))
        guard case .joinTable(let join, isSourceSide: true) = storage else {
            Issue.record("Book.tags is not the owning side of a join table: \(storage)")
            return
        }
        #expect(join.name == "Z_BOOK_TAGS")
        let sql = try #require(statements.joinTable(join))
        #expect(sql.insert == #"INSERT OR IGNORE INTO "Z_BOOK_TAGS" (Z_SOURCE, Z_TARGET) VALUES (?, ?)"#)
        #expect(sql.deletePair == #"DELETE FROM "Z_BOOK_TAGS" WHERE Z_SOURCE = ? AND Z_TARGET = ?"#)
        #expect(sql.deleteSource == #"DELETE FROM "Z_BOOK_TAGS" WHERE Z_SOURCE = ?"#)
        #expect(sql.deleteTarget == #"DELETE FROM "Z_BOOK_TAGS" WHERE Z_TARGET = ?"#)
        // Tag.books is the other side of the same table: it writes nothing.
        guard case .joinTable(let same, isSourceSide: false)? = library.schema.storage(of: try library.relationship("books", of: library.tag)) else {
            Issue.record("Tag.books does not read Z_BOOK_TAGS from the target side")
            return
        }
        #expect(same.name == join.name)
    }

    @Test("ordered relationships write positions: Z_ORDER in a join table, Z_FOK_ on the members")
    func orderingWrites() throws {
        // An ordered many-to-many is owned by its ordered side and keeps positions in Z_ORDER: a
        // change rewrites the owner's rows whole (delete, then insert each member with its
        // position; OR REPLACE keeps a pair unique).
        let shelfBooks = try library.relationship("books", of: library.shelf)
        guard case .joinTable(let join, isSourceSide: true)? = library.schema.storage(of: shelfBooks) else {
            Issue.record("Shelf.books is not the owning side of a join table")
            return
        }
        #expect(join.name == "Z_SHELF_BOOKS" && join.isOrdered)
        let sql = try #require(statements.joinTable(join))
        #expect(sql.deleteSource == #"DELETE FROM "Z_SHELF_BOOKS" WHERE Z_SOURCE = ?"#)
        #expect(sql.insertOrdered == #"INSERT OR REPLACE INTO "Z_SHELF_BOOKS" (Z_SOURCE, Z_TARGET, Z_ORDER) VALUES (?, ?, ?)"#)

        // An ordered one-to-many keeps membership in the inverse's foreign key (written with the
        // member's row) and each member's position in Z_FOK_<KEY> (Core Data's name), written by
        // key after the inserts: binds (position, member key).
        #expect(statements.positionUpdate(try library.relationship("chapters", of: library.book)) == #"UPDATE "ZCHAPTER" SET "Z_FOK_BOOK" = ? WHERE Z_PK = ?"#)
        // Unordered to-manys and join tables have no position column.
        #expect(statements.positionUpdate(try library.relationship("books", of: library.author)) == nil)
        #expect(statements.positionUpdate(shelfBooks) == nil)
    }
}
