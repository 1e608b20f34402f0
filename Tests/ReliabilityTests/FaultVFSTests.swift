import CSQLite
import Foundation
import ReliabilityKit
import Strata
import StrataTestSupport
import Testing

@Suite("Fault VFS")
struct FaultVFSTests {
    @Test("Registering twice gives the same VFS; a store opened through it is counted")
    func countsAStoreOpenedThroughIt() throws {
        let vfs = try #require(FaultVFS.register(name: "test-fault-counting"))
        #expect(FaultVFS.register(name: "test-fault-counting")?.name == vfs.name)
        let directory = TemporaryDirectory(prefix: "strata-vfs")
        vfs.resetCounters()
        try BankWorkload.createStore(at: directory.file("a.sqlite"), settings: StoreSettings(journal: .delete, vfsName: vfs.name), accounts: 4)
        #expect(vfs.count(.write) > 0)
        #expect(vfs.count(.sync) > 0)
        #expect(vfs.count(.delete) > 0)  // the rollback journal of each transaction
        #expect(vfs.openFiles == 0)
    }

    @Test("A store cannot be added with an unknown VFS name (134080)")
    func unknownVFS() {
        let directory = TemporaryDirectory(prefix: "strata-vfs")
        #expect {
            _ = try BankStack(url: directory.file("a.sqlite"), settings: StoreSettings(journal: .wal, vfsName: "no-such-vfs"))
        } throws: { error in
            (error as? StrataError)?.code == StrataError.Code.persistentStoreOpen && (error as? StrataError)?.sqliteCode == SQLITE_ERROR
        }
    }

    @Test("Once fails one operation, persistent every later one until disarmed")
    func onceAndPersistent() throws {
        let vfs = try #require(FaultVFS.register(name: "test-fault-modes"))
        let directory = TemporaryDirectory(prefix: "strata-vfs")
        let path = directory.file("raw.sqlite").path
        let db = try RawSQLite(path: path, readWrite: true, create: true, vfs: vfs.name)
        try db.execute("PRAGMA journal_mode=DELETE; CREATE TABLE t(x)")
        vfs.arm(.write, at: 0, mode: .once)
        #expect(throws: RawSQLite.Failure.self) { try db.execute("INSERT INTO t VALUES (1)") }
        try db.execute("INSERT INTO t VALUES (2)")
        #expect(vfs.fired == 1)
        vfs.arm(.sync, at: 0, mode: .persistent)
        #expect(throws: RawSQLite.Failure.self) { try db.execute("INSERT INTO t VALUES (3)") }
        #expect(throws: RawSQLite.Failure.self) { try db.execute("INSERT INTO t VALUES (4)") }
        vfs.disarm()
        try db.execute("INSERT INTO t VALUES (5)")
        #expect(try db.rows("SELECT x FROM t ORDER BY x").map { $0[0].int64 } == [2, 5])
    }

    @Test("Kill mode SIGKILLs the process at the chosen operation")
    func killMode() async {
        // The folder belongs to this process: the child is killed without running deinitializers.
        let directory = TemporaryDirectory(prefix: "strata-vfs")
        await #expect(processExitsWith: .signal(SIGKILL)) { [store = directory.file("a.sqlite") as URL] in
            guard let vfs = FaultVFS.register(name: "test-fault-kill") else { return }
            vfs.arm(.write, at: 0, mode: .kill)
            _ = try? BankWorkload.createStore(at: store, settings: StoreSettings(journal: .wal, vfsName: vfs.name), accounts: 4)
        }
        withExtendedLifetime(directory) {}  // the folder outlives the child
    }
}
