import Foundation
import Strata
import StrataTestSupport
import Testing

/// The statements saves run, in order, on a real store: the one suite of this folder that opens
/// a database. It checks that the SQLite store runs the statements `SaveStatements` builds
/// (pinned without a database in `SaveSQLTests`) in the order of a save: one
/// `BEGIN IMMEDIATE` transaction; keys per table from `Z_PRIMARYKEY`; inserts; updates with the
/// `Z_OPT` guard; to-many writes; deletes with their join rows; `COMMIT`.
@Suite("Save statement sequence")
struct SaveSequenceTests {
    @Test("insert, update and delete saves run their statements in order, one transaction each")
    func sequence() throws {
        let stack = try TestStack(model: GraphFixtures.music())
        let context = stack.newContext()
        let recorder = stack.recordSQL()
        try context.performAndWait {
            let album = Album(context: context)
            let first = Song(context: context)
            let second = Song(context: context)
            let playlist = Playlist(context: context)
            let inserted = try recorder.statements(
                during: {
                    album.title = "A"
                    first.title = "one"
                    second.title = "two"
                    album.tracks = [first, second]
                    playlist.name = "P"
                    playlist.songs = [second, first]
                    try context.save()
                }, includingTransactions: true)
            // Keys for each table (Album, Song, Playlist) inside the transaction, then the rows
            // (a song's album is its foreign key), then the positions of the ordered one-to-many
            // (Album.tracks: Z_FOK_ALBUM on the songs) and the ordered many-to-many's rows
            // (Playlist.songs owns Z_PLAYLIST_SONGS; Song.playlists writes nothing).
            #expect(
                inserted == [
                    "BEGIN IMMEDIATE TRANSACTION",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX",
                    #"INSERT INTO "ZALBUM" ("Z_PK", "Z_ENT", "Z_OPT", "ZTITLE") VALUES (?, ?, ?, ?)"#,
                    #"INSERT INTO "ZSONG" ("Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZALBUM") VALUES (?, ?, ?, ?, ?)"#,
                    #"INSERT INTO "ZSONG" ("Z_PK", "Z_ENT", "Z_OPT", "ZTITLE", "ZALBUM") VALUES (?, ?, ?, ?, ?)"#,
                    #"INSERT INTO "ZPLAYLIST" ("Z_PK", "Z_ENT", "Z_OPT", "ZNAME") VALUES (?, ?, ?, ?)"#,
                    #"UPDATE "ZSONG" SET "Z_FOK_ALBUM" = ? WHERE Z_PK = ?"#,
                    #"UPDATE "ZSONG" SET "Z_FOK_ALBUM" = ? WHERE Z_PK = ?"#,
                    #"DELETE FROM "Z_PLAYLIST_SONGS" WHERE Z_SOURCE = ?"#,
                    #"INSERT OR REPLACE INTO "Z_PLAYLIST_SONGS" (Z_SOURCE, Z_TARGET, Z_ORDER) VALUES (?, ?, ?)"#,
                    #"INSERT OR REPLACE INTO "Z_PLAYLIST_SONGS" (Z_SOURCE, Z_TARGET, Z_ORDER) VALUES (?, ?, ?)"#,
                    "COMMIT TRANSACTION",
                ])

            let updated = try recorder.statements(
                during: {
                    first.title = "uno"
                    try context.save()
                }, includingTransactions: true)
            // Only the changed column, guarded by the version the context read.
            #expect(
                updated == [
                    "BEGIN IMMEDIATE TRANSACTION",
                    #"UPDATE "ZSONG" SET "ZTITLE" = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"#,
                    "COMMIT TRANSACTION",
                ])

            let deleted = try recorder.statements(
                during: {
                    context.delete(playlist)
                    try context.save()
                }, includingTransactions: true)
            // The songs lose the playlist from their to-many (the nullify rule): a change without
            // a column, so only their versions go up. Then the guarded DELETE and the deleted
            // playlist's join rows.
            #expect(
                deleted == [
                    "BEGIN IMMEDIATE TRANSACTION",
                    #"UPDATE "ZSONG" SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"#,
                    #"UPDATE "ZSONG" SET Z_OPT = Z_OPT + 1 WHERE Z_PK = ? AND Z_OPT = ?"#,
                    #"DELETE FROM "ZPLAYLIST" WHERE Z_PK = ? AND Z_OPT = ?"#,
                    #"DELETE FROM "Z_PLAYLIST_SONGS" WHERE Z_SOURCE = ?"#,
                    "COMMIT TRANSACTION",
                ])
        }
    }
}
