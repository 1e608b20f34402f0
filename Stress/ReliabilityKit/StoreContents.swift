import Foundation

/// What a bank store file holds, read with plain SQL (``RawSQLite``, not through Strata), so
/// the checker does not depend on the code it checks.
public struct StoreContents: Sendable {
    /// One SaveRecord row.
    public struct Record: Sendable {
        public var primaryKey: Int64
        public var number: Int64
        public var transferCount: Int64
        public var total: Int64
        public var payloadSize: Int64
        public var checksum: Int64
        /// The checksum of the payload bytes actually stored.
        public var payloadChecksum: Int64
        /// The size of the payload bytes actually stored.
        public var storedPayloadSize: Int64
        public var kind: String?
    }

    /// One Transfer row.
    public struct Transfer: Sendable {
        public var saveNumber: Int64
        public var source: Int64
        public var target: Int64
        public var amount: Int64
        /// The SaveRecord primary key the row points to.
        public var recordKey: Int64?
    }

    /// `PRAGMA integrity_check`'s answer ("ok" when sound).
    public var integrity: String
    /// Balance by account number.
    public var balances: [Int64: Int64]
    /// How many account rows there are (more than `balances.count` means duplicate numbers).
    public var accountRows: Int
    /// Every SaveRecord row.
    public var records: [Record]
    /// Every Transfer row.
    public var transfers: [Transfer]
    /// Counter values by name.
    public var counters: [String: Int64]
    /// AuditEntry rows: total by save number (a list, to see duplicates).
    public var audits: [(saveNumber: Int64, total: Int64)] = []

    /// Reads the store at `url`. `readWrite` lets the connection roll back a hot journal left by
    /// a failed transaction; it never changes the journal mode.
    public static func read(_ url: URL, readWrite: Bool = false) throws -> StoreContents {
        let db = try RawSQLite(path: url.path, readWrite: readWrite)
        let integrity = try db.rows("PRAGMA integrity_check").compactMap { $0.first?.text }.joined(separator: "; ")
        var contents = StoreContents(integrity: integrity, balances: [:], accountRows: 0, records: [], transfers: [], counters: [:])
        for row in try db.rows("SELECT ZNUMBER, ZBALANCE FROM ZACCOUNT") {
            contents.accountRows += 1
            contents.balances[row[0].int64] = row[1].int64
        }
        for row in try db.rows("SELECT Z_PK, ZNUMBER, ZTRANSFERCOUNT, ZTOTAL, ZPAYLOADSIZE, ZCHECKSUM, ZPAYLOAD, ZKIND FROM ZSAVERECORD") {
            let payload = row[6].data
            contents.records.append(
                Record(
                    primaryKey: row[0].int64, number: row[1].int64, transferCount: row[2].int64, total: row[3].int64,
                    payloadSize: row[4].int64, checksum: row[5].int64, payloadChecksum: Checksum.fnv1a(payload),
                    storedPayloadSize: Int64(payload.count), kind: row[7].text))
        }
        for row in try db.rows("SELECT ZSAVENUMBER, ZSOURCE, ZTARGET, ZAMOUNT, ZRECORD FROM ZTRANSFER") {
            contents.transfers.append(
                Transfer(
                    saveNumber: row[0].int64, source: row[1].int64, target: row[2].int64, amount: row[3].int64,
                    recordKey: row[4].isNull ? nil : row[4].int64))
        }
        for row in try db.rows("SELECT ZNAME, ZVALUE FROM ZCOUNTER") {
            contents.counters[row[0].text ?? ""] = row[1].int64
        }
        for row in try db.rows("SELECT ZSAVENUMBER, ZTOTAL FROM ZAUDITENTRY") {
            contents.audits.append((saveNumber: row[0].int64, total: row[1].int64))
        }
        return contents
    }

    /// The highest save number present (0 when none).
    public var lastSaveNumber: Int64 { records.map(\.number).max() ?? 0 }

    /// The sum of every balance.
    public var totalBalance: Int64 { balances.values.reduce(0, +) }
}
