import Foundation
import Strata
import StrataSQLite

/// Builds the large store fast: Strata creates the schema and its metadata (so the tables are
/// exactly the ones it reads), then raw SQLite prepared inserts fill `Record` and `Account` in
/// one transaction, and `Z_PRIMARYKEY` is moved past the rows so that objects Strata inserts
/// later get fresh keys.
public enum LargeStore {
    /// What building the store took.
    public struct Built: Sendable {
        /// Rows of `Record`.
        public var rows: Int
        /// Accounts of the bank, each with ``BankModel/openingBalance``.
        public var accounts: Int
        /// Seconds spent.
        public var seconds: Double
        /// The file's size in bytes.
        public var bytes: Int
    }

    /// Creates the store at `url` with `rows` records (`version` 0) and `accounts` accounts.
    public static func build(at url: URL, rows: Int, accounts: Int) throws -> Built {
        let started = DispatchTime.now()
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: LargeModel.make())
            try coordinator.addPersistentStore(type: .sqlite, at: url)
            for store in coordinator.persistentStores { try coordinator.remove(store) }
        }
        let connection = try SQLiteConnection(path: url.path)
        try connection.execute("PRAGMA synchronous = OFF")
        func entityCode(_ name: String) throws -> Int64 {
            let statement = try connection.makeStatement("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?")
            var code: Int64?
            try statement.forEachRow([.text(name)]) { code = $0.int64(at: 0) }
            guard let code else { throw SQLiteError(extendedCode: 1, message: "no Z_PRIMARYKEY row for \(name)") }
            return code
        }
        let recordCode = try entityCode("Record")
        let accountCode = try entityCode("Account")
        try connection.transaction {
            let insert = try connection.makeStatement("INSERT INTO ZRECORD (Z_PK, Z_ENT, Z_OPT, ZKEY, ZVERSION, ZNAME, ZSCORE) VALUES (?, ?, 1, ?, 0, ?, ?)")
            for row in 0..<rows {
                let key = Int64(row)
                insert.bind(int64: key + 1, at: 1)
                insert.bind(int64: recordCode, at: 2)
                insert.bind(int64: key, at: 3)
                try insert.bind(.text(LargeModel.name(of: key)), at: 4)
                try insert.bind(.real(LargeModel.score(of: key)), at: 5)
                try insert.execute()
            }
            let account = try connection.makeStatement(
                "INSERT INTO ZACCOUNT (Z_PK, Z_ENT, Z_OPT, ZNUMBER, ZBALANCE, ZOPERATIONS) VALUES (?, ?, 1, ?, ?, 0)")
            for number in 0..<accounts {
                account.bind(int64: Int64(number + 1), at: 1)
                account.bind(int64: accountCode, at: 2)
                account.bind(int64: Int64(number), at: 3)
                account.bind(int64: BankModel.openingBalance, at: 4)
                try account.execute()
            }
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(rows) WHERE Z_ENT = \(recordCode)")
            try connection.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(accounts) WHERE Z_ENT = \(accountCode)")
        }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        return Built(rows: rows, accounts: accounts, seconds: seconds, bytes: bytes)
    }

    /// The sum of every record's version and the number of records, read with SQLite alone: the
    /// sum must equal the edits the writers saved (each adds exactly one), or an update was lost
    /// (less) or counted twice (more).
    public static func versionTotals(at url: URL) throws -> (rows: Int, versions: Int64) {
        var configuration = SQLiteConfiguration()
        configuration.readOnly = true
        let connection = try SQLiteConnection(path: url.path, configuration: configuration)
        var result: (rows: Int, versions: Int64) = (0, 0)
        try connection.makeStatement("SELECT COUNT(*), TOTAL(ZVERSION) FROM ZRECORD").forEachRow { row in
            result = (Int(row.int64(at: 0)), Int64(row.double(at: 1)))
        }
        return result
    }
}
