import Foundation
import Strata
import StrataSQLite

/// The bank's invariants, checked through Strata (a reader context) and independently through
/// SQLite itself. Each check returns the problems it found (empty: the invariant holds).
public enum BankInvariants {
    /// One account as a check sees it.
    public struct AccountState: Equatable, Sendable, CustomStringConvertible {
        /// Its balance.
        public var balance: Int64
        /// Its operations counter.
        public var operations: Int64
        public var description: String { "balance \(balance), operations \(operations)" }
    }

    /// What the full ledger check covered.
    public struct LedgerSummary: Sendable {
        /// Problems found.
        public var problems: [String] = []
        /// Accounts open now.
        public var accounts = 0
        /// Account numbers in the log whose account was closed.
        public var closedAccounts = 0
        /// Logged transfers.
        public var transfers = 0
        /// The money in the open accounts.
        public var total: Int64 = 0
    }

    /// Quick check (one fetch): the money in the bank is what it opened with and no balance is
    /// negative. Call from a thread holding no context; `reader` is a root context of its own.
    public static func money(in reader: ManagedObjectContext, initialAccounts: Int) -> [String] {
        reader.performAndWait {
            defer { reader.reset() }
            do {
                let request = BankModel.accounts()
                request.returnsObjectsAsFaults = false
                request.shouldRefreshRefetchedObjects = true
                let accounts = try reader.fetch(request)
                var problems: [String] = []
                let total = accounts.reduce(Int64(0)) { $0 + $1.balance }
                let expected = BankModel.totalMoney(initialAccounts: initialAccounts)
                if total != expected { problems.append("total money \(total), expected \(expected)") }
                for account in accounts where account.balance < 0 {
                    problems.append("account \(account.number) has a negative balance \(account.balance)")
                }
                return problems
            } catch {
                return ["reading the accounts failed: \(error)"]
            }
        }
    }

    /// Full check, in one pinned query generation (accounts and log from the same state):
    /// the total, no negative balance, unique account numbers, and no lost update — each open
    /// account's operations counter equals the number of logged transfers it took part in, and
    /// its balance equals its opening balance plus what the log brought in minus what it took
    /// out; every closed account's log nets to zero.
    public static func ledger(in reader: ManagedObjectContext, initialAccounts: Int) -> LedgerSummary {
        reader.performAndWait {
            var summary = LedgerSummary()
            defer {
                try? reader.setQueryGenerationFrom(nil)
                reader.reset()
            }
            do {
                try reader.setQueryGenerationFrom(.current)
                let request = BankModel.accounts()
                request.returnsObjectsAsFaults = false
                request.shouldRefreshRefetchedObjects = true
                let accounts = try reader.fetch(request)
                let transfers = BankModel.transfers()
                transfers.returnsObjectsAsFaults = false
                var incoming: [Int64: Int64] = [:]
                var outgoing: [Int64: Int64] = [:]
                var count: [Int64: Int64] = [:]
                for transfer in try reader.fetch(transfers) {
                    summary.transfers += 1
                    if transfer.amount <= 0 || transfer.fromAccount == transfer.toAccount {
                        summary.problems.append("bad log entry: \(transfer.amount) from \(transfer.fromAccount) to \(transfer.toAccount)")
                    }
                    outgoing[transfer.fromAccount, default: 0] += transfer.amount
                    incoming[transfer.toAccount, default: 0] += transfer.amount
                    count[transfer.fromAccount, default: 0] += 1
                    count[transfer.toAccount, default: 0] += 1
                }
                var open = Set<Int64>()
                for account in accounts {
                    let number = account.number
                    summary.accounts += 1
                    summary.total += account.balance
                    if !open.insert(number).inserted { summary.problems.append("two open accounts numbered \(number)") }
                    if account.balance < 0 { summary.problems.append("account \(number) has a negative balance \(account.balance)") }
                    let expected = BankModel.openingBalance(of: number, initialAccounts: initialAccounts) + incoming[number, default: 0] - outgoing[number, default: 0]
                    if account.balance != expected {
                        summary.problems.append("lost update on account \(number): balance \(account.balance), the log says \(expected)")
                    }
                    if account.operations != count[number, default: 0] {
                        summary.problems.append("lost update on account \(number): \(account.operations) operations counted, \(count[number, default: 0]) logged")
                    }
                }
                for number in Set(count.keys).subtracting(open) {
                    summary.closedAccounts += 1
                    if number < Int64(initialAccounts) { summary.problems.append("initial account \(number) disappeared") }
                    let left = BankModel.openingBalance(of: number, initialAccounts: initialAccounts) + incoming[number, default: 0] - outgoing[number, default: 0]
                    if left != 0 { summary.problems.append("closed account \(number) still held \(left) by the log: money created or lost") }
                }
                let expectedTotal = BankModel.totalMoney(initialAccounts: initialAccounts)
                if summary.total != expectedTotal { summary.problems.append("total money \(summary.total), expected \(expectedTotal)") }
            } catch {
                summary.problems.append("reading the ledger failed: \(error)")
            }
            return summary
        }
    }

    /// Every account as `context` sees it (its pending changes included).
    public static func accounts(in context: ManagedObjectContext) throws -> [Int64: AccountState] {
        try context.performAndWait {
            var result: [Int64: AccountState] = [:]
            for account in try context.fetch(BankModel.accounts()) where !account.isDeleted {
                result[account.number] = AccountState(balance: account.balance, operations: account.operations)
            }
            return result
        }
    }

    /// The differences between two views of the accounts (at most `limit` listed).
    public static func differences(_ view: [Int64: AccountState], from reference: [Int64: AccountState], limit: Int = 3) -> [String] {
        var result: [String] = []
        for number in Set(view.keys).union(reference.keys).sorted() where view[number] != reference[number] {
            result.append("account \(number): \(view[number].map(String.init(describing:)) ?? "missing") instead of \(reference[number].map(String.init(describing:)) ?? "missing")")
            if result.count == limit { break }
        }
        return result
    }

    /// Opens the store file with SQLite alone: `PRAGMA integrity_check`, then the money and the
    /// per-account ledger recomputed in SQL — an oracle that does not go through Strata.
    public static func sqlite(storeURL: URL, initialAccounts: Int) -> (integrity: [String], oracle: [String]) {
        var configuration = SQLiteConfiguration()
        configuration.readOnly = true
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: storeURL.path, configuration: configuration)
        } catch {
            return (["opening \(storeURL.lastPathComponent) failed: \(error)"], [])
        }
        var integrity: [String] = []
        do {
            try connection.makeStatement("PRAGMA integrity_check").forEachRow { row in
                if let line = row.text(at: 0), line != "ok" { integrity.append(line) }
            }
        } catch {
            integrity.append("integrity_check failed: \(error)")
        }
        var oracle: [String] = []
        do {
            var accounts: [Int64: AccountState] = [:]
            try connection.makeStatement("SELECT ZNUMBER, ZBALANCE, ZOPERATIONS FROM ZACCOUNT").forEachRow { row in
                accounts[row.int64(at: 0)] = AccountState(balance: row.int64(at: 1), operations: row.int64(at: 2))
            }
            var net: [Int64: Int64] = [:]
            var count: [Int64: Int64] = [:]
            try connection.makeStatement("SELECT ZFROMACCOUNT, SUM(ZAMOUNT), COUNT(*) FROM ZTRANSFER GROUP BY ZFROMACCOUNT").forEachRow { row in
                net[row.int64(at: 0), default: 0] -= row.int64(at: 1)
                count[row.int64(at: 0), default: 0] += row.int64(at: 2)
            }
            try connection.makeStatement("SELECT ZTOACCOUNT, SUM(ZAMOUNT), COUNT(*) FROM ZTRANSFER GROUP BY ZTOACCOUNT").forEachRow { row in
                net[row.int64(at: 0), default: 0] += row.int64(at: 1)
                count[row.int64(at: 0), default: 0] += row.int64(at: 2)
            }
            let total = accounts.values.reduce(Int64(0)) { $0 + $1.balance }
            let expected = BankModel.totalMoney(initialAccounts: initialAccounts)
            if total != expected { oracle.append("SQL total \(total), expected \(expected)") }
            for number in Set(accounts.keys).union(net.keys).sorted() {
                let opening = BankModel.openingBalance(of: number, initialAccounts: initialAccounts)
                let state = accounts[number] ?? AccountState(balance: 0, operations: count[number, default: 0])
                if state.balance != opening + net[number, default: 0] || state.operations != count[number, default: 0] || state.balance < 0 {
                    oracle.append("SQL ledger of account \(number): \(state), log nets \(opening + net[number, default: 0]) over \(count[number, default: 0]) transfers")
                    if oracle.count >= 5 { break }
                }
            }
        } catch {
            oracle.append("SQL oracle failed: \(error)")
        }
        return (integrity, oracle)
    }
}
