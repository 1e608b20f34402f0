import Foundation
import StrataSQLite
import Testing

@testable import Strata

/// The exact SQL that creates a store and reads and writes its own tables, from the model alone
/// (no database).
@Suite("Schema SQL")
struct SchemaSQLTests {
    @Test("Core Data's layout: Z_METADATA, Z_PRIMARYKEY, a table per root, join tables, indexes")
    func creationStatements() throws {
        // One table per inheritance root named Z<ROOT>, with Z_PK (integer primary key: the
        // rowid), Z_ENT (entity code) and Z_OPT (row version, starting at 1), then a column per
        // stored attribute of every entity of the tree and an indexed foreign key per to-one
        // (plus <KEY>_ENT when the destination has sub-entities). Floating-point columns have no
        // declared type (no affinity keeps −0.0 and integral doubles as bound); decimals are text
        // in decimal order. Join tables are WITHOUT ROWID with the pair as primary key and an
        // index the other way round. A uniqueness constraint is a partial unique index over the
        // entity's codes. Only a table with sub-entities indexes Z_ENT. Everything is IF NOT
        // EXISTS: creation may be repeated.
        let library = try LibraryModel()
        #expect(
            library.schema.creationStatements == [
                "CREATE TABLE IF NOT EXISTS Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID TEXT NOT NULL, Z_PLIST BLOB NOT NULL)",
                "CREATE TABLE IF NOT EXISTS Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME TEXT NOT NULL, Z_SUPER INTEGER NOT NULL, Z_MAX INTEGER NOT NULL)",
                #"CREATE TABLE IF NOT EXISTS "ZBOOK" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL DEFAULT 1, "ZTITLE" TEXT, "ZPRICE" TEXT COLLATE STRATA_DECIMAL, "ZPUBLISHED" REAL, "ZAUTHOR" INTEGER, "ZEDITOR" INTEGER, "ZEDITOR_ENT" INTEGER)"#,
                #"CREATE INDEX IF NOT EXISTS "ZBOOK_ZTITLE_INDEX" ON "ZBOOK" ("ZTITLE")"#,
                #"CREATE INDEX IF NOT EXISTS "ZBOOK_ZAUTHOR_INDEX" ON "ZBOOK" ("ZAUTHOR")"#,
                #"CREATE INDEX IF NOT EXISTS "ZBOOK_ZEDITOR_INDEX" ON "ZBOOK" ("ZEDITOR")"#,
                #"CREATE TABLE IF NOT EXISTS "ZCHAPTER" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL DEFAULT 1, "ZTITLE" TEXT, "ZBOOK" INTEGER, "Z_FOK_BOOK" INTEGER)"#,
                #"CREATE INDEX IF NOT EXISTS "ZCHAPTER_ZBOOK_INDEX" ON "ZCHAPTER" ("ZBOOK")"#,
                #"CREATE TABLE IF NOT EXISTS "ZPERSON" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL DEFAULT 1, "ZNAME" TEXT, "ZRATING", "ZLEVEL" INTEGER)"#,
                #"CREATE INDEX IF NOT EXISTS "ZPERSON_Z_ENT_INDEX" ON "ZPERSON" ("Z_ENT")"#,
                #"CREATE TABLE IF NOT EXISTS "ZSHELF" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL DEFAULT 1, "ZNAME" TEXT)"#,
                #"CREATE TABLE IF NOT EXISTS "ZTAG" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER NOT NULL, Z_OPT INTEGER NOT NULL DEFAULT 1, "ZLABEL" TEXT)"#,
                #"CREATE TABLE IF NOT EXISTS "Z_SHELF_BOOKS" (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL, Z_ORDER INTEGER, PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID"#,
                #"CREATE INDEX IF NOT EXISTS "Z_SHELF_BOOKS_TARGET_INDEX" ON "Z_SHELF_BOOKS" (Z_TARGET, Z_SOURCE)"#,
                #"CREATE TABLE IF NOT EXISTS "Z_BOOK_TAGS" (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL, PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID"#,
                #"CREATE INDEX IF NOT EXISTS "Z_BOOK_TAGS_TARGET_INDEX" ON "Z_BOOK_TAGS" (Z_TARGET, Z_SOURCE)"#,
                #"CREATE UNIQUE INDEX IF NOT EXISTS "ZTAG_TAG_UNIQUE_0" ON "ZTAG" ("ZLABEL") WHERE Z_ENT IN (7)"#,
            ])
        // Indexes are not part of the model's version hash, so opening a store creates any the
        // model added; opening checks them by name first so a complete store is opened without
        // the write lock.
        #expect(library.schema.indexStatements.count == 8)
        #expect(library.schema.indexStatements.compactMap(SQLiteSchema.indexName(in:)).first == "ZBOOK_ZTITLE_INDEX")
        #expect(library.schema.indexStatements.compactMap(SQLiteSchema.indexName(in:)).last == "ZTAG_TAG_UNIQUE_0")
    }

    @Test("the store's own rows: metadata, primary-key counters, the catalogue")
    func metadataStatements() {
        // Z_METADATA holds one row: the store's UUID and a binary property list with the model's
        // version hashes, checked before anything else is touched (an incompatible store is an
        // error, never a silent migration). Z_PRIMARYKEY has a row per entity, its counter at 0.
        #expect(MetadataStatements.readMetadata == "SELECT Z_UUID, Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1")
        #expect(MetadataStatements.writeMetadata == "INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        #expect(MetadataStatements.insertPrimaryKeyRow == "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)")
        // A file with tables but no Z_METADATA belongs to another program and is never touched.
        #expect(MetadataStatements.metadataTable == "Z_METADATA")
        #expect(MetadataStatements.tableExists == "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        #expect(MetadataStatements.tableCount == "SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        #expect(MetadataStatements.indexNames == "SELECT name FROM sqlite_master WHERE type = 'index'")
    }

    @Test("a query generation is a deferred read transaction fixed by its first read")
    func pinnedRead() {
        // SQLite here has no sqlite3_snapshot API, so a pinned generation holds a read
        // transaction open; in WAL mode the snapshot is taken at its first read, not at BEGIN.
        #expect(SQLiteTransactionKind.deferred.beginStatement == "BEGIN DEFERRED TRANSACTION")
        #expect(MetadataStatements.pinnedFirstRead == "SELECT count(*) FROM Z_METADATA")
    }

    @Test("the app's pragmas run as given")
    func pragmas() {
        // PersistentStoreOption.sqlitePragmas, like Core Data's NSSQLitePragmasOption: name and
        // value are the app's SQL (a pragma's value cannot be bound).
        #expect(MetadataStatements.pragma("cache_size", "-8000") == "PRAGMA cache_size = -8000")
    }
}
