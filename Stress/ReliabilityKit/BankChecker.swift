import Foundation
import Strata

/// What the checker found in one store.
public struct BankCheck: Sendable, CustomStringConvertible {
    /// Strata could not open the store, or `PRAGMA integrity_check` was not "ok".
    public var isCorrupt: Bool
    /// Everything wrong, one sentence each (empty when the store is consistent).
    public var problems: [String]
    /// The highest save number in the store.
    public var lastSave: Int64
    /// Acknowledged saves missing from the store.
    public var lostAcknowledged: Int
    /// Saves in the store beyond the last acknowledged one (committed, not acknowledged).
    public var committedNotAcknowledged: Int
    /// Whether the balances still add up to the initial total.
    public var invariantHolds: Bool

    /// No damage of any kind.
    public var isConsistent: Bool { !isCorrupt && problems.isEmpty }

    public var description: String {
        isConsistent ? "consistent (last save \(lastSave))" : "DAMAGED: " + problems.prefix(6).joined(separator: " | ")
    }
}

/// Checks a bank store: integrity, the money invariant, every save complete and equal to its
/// recipe, no gaps, acknowledged saves present, and Strata's reads equal to the file's.
public enum BankChecker {
    /// Opens the store with Strata (which recovers a hot journal or WAL), then checks it.
    /// `acknowledged` is the highest save number the writer reported as saved.
    public static func check(_ url: URL, auditURL: URL? = nil, settings: StoreSettings, book: RecipeBook, acknowledged: Int64) -> BankCheck {
        let stack: BankStack
        do {
            stack = try BankStack(url: url, auditURL: auditURL, settings: settings.withoutVFS)
        } catch {
            return BankCheck(
                isCorrupt: true, problems: ["Strata cannot open the store: \(error)"], lastSave: 0, lostAcknowledged: Int(max(0, acknowledged)), committedNotAcknowledged: 0, invariantHolds: false)
        }
        defer { stack.close() }
        let contents: StoreContents
        let audit: StoreContents?
        do {
            contents = try StoreContents.read(url)
            audit = try auditURL.map { try StoreContents.read($0) }
        } catch {
            return BankCheck(
                isCorrupt: true, problems: ["The file cannot be read with SQL: \(error)"], lastSave: 0, lostAcknowledged: Int(max(0, acknowledged)), committedNotAcknowledged: 0, invariantHolds: false)
        }
        var result = verify(contents, audit: audit, book: book, acknowledged: acknowledged)
        result.problems += compareWithStrata(stack, contents: contents)
        return result
    }

    /// Checks file contents against the recipes (no Strata involved).
    /// `audit` holds the AuditEntry rows of a two-store stack (nil: they are in `contents`).
    public static func verify(_ contents: StoreContents, audit: StoreContents? = nil, book: RecipeBook, acknowledged: Int64) -> BankCheck {
        var problems: [String] = []
        if let audit, audit.integrity != "ok" { problems.append("audit store integrity_check: \(audit.integrity.prefix(300))") }
        let corrupt = contents.integrity != "ok" || (audit.map { $0.integrity != "ok" } ?? false)
        if corrupt { problems.append("integrity_check: \(contents.integrity.prefix(300))") }
        // Accounts.
        let expectedTotal = Int64(book.accounts) * BankModel.initialBalance
        let invariant = contents.totalBalance == expectedTotal && contents.accountRows == book.accounts
        if contents.accountRows != book.accounts || contents.balances.count != book.accounts {
            problems.append("\(contents.accountRows) account rows (\(contents.balances.count) numbers), expected \(book.accounts)")
        }
        if contents.totalBalance != expectedTotal {
            problems.append("invariant broken: balances add up to \(contents.totalBalance), expected \(expectedTotal)")
        }
        // Records: unique, contiguous from 1, each equal to its recipe.
        var byNumber: [Int64: StoreContents.Record] = [:]
        for record in contents.records {
            if byNumber[record.number] != nil { problems.append("save \(record.number) is stored twice") }
            byNumber[record.number] = record
        }
        let last = contents.lastSaveNumber
        let present = Set(byNumber.keys)
        if last > 0 {
            let missing = (1...last).filter { !present.contains($0) }
            if !missing.isEmpty { problems.append("saves missing below the last one (\(last)): \(missing.prefix(10).map(String.init).joined(separator: ", "))") }
        }
        var transfersBySave: [Int64: [StoreContents.Transfer]] = [:]
        for transfer in contents.transfers { transfersBySave[transfer.saveNumber, default: []].append(transfer) }
        for (number, transfers) in transfersBySave where byNumber[number] == nil {
            problems.append("partial save \(number): \(transfers.count) transfer(s) without their SaveRecord")
        }
        var recipes: [SaveRecipe] = []
        for number in present.sorted() {
            guard let record = byNumber[number] else { continue }
            let recipe = book.recipe(number)
            recipes.append(recipe)
            var issues: [String] = []
            if record.transferCount != Int64(recipe.transfers.count) { issues.append("transferCount \(record.transferCount) ≠ \(recipe.transfers.count)") }
            if record.total != recipe.total { issues.append("total \(record.total) ≠ \(recipe.total)") }
            if record.payloadSize != Int64(recipe.payload.count) || record.storedPayloadSize != Int64(recipe.payload.count) {
                issues.append("payload size \(record.payloadSize)/\(record.storedPayloadSize) ≠ \(recipe.payload.count)")
            }
            if record.checksum != recipe.checksum || record.payloadChecksum != recipe.checksum { issues.append("payload checksum mismatch") }
            if record.kind != recipe.route.rawValue { issues.append("kind \(record.kind ?? "nil") ≠ \(recipe.route.rawValue)") }
            let stored = transfersBySave[number] ?? []
            if stored.contains(where: { $0.recordKey != record.primaryKey }) { issues.append("a transfer points to another SaveRecord") }
            let storedSet = stored.map { PlannedTransfer(source: $0.source, target: $0.target, amount: $0.amount) }
            if multiset(storedSet) != multiset(recipe.transfers) {
                issues.append("transfers differ (\(stored.count) stored, \(recipe.transfers.count) planned)")
            }
            if !issues.isEmpty { problems.append("save \(number) partially applied or wrong: " + issues.joined(separator: ", ")) }
        }
        // Audit entries: one per audited save, in the audit store, and none for a missing save
        // (a save spanning two stores lands in both or in neither).
        var audits: [Int64: [Int64]] = [:]
        for entry in (audit ?? contents).audits { audits[entry.saveNumber, default: []].append(entry.total) }
        for (number, totals) in audits.sorted(by: { $0.key < $1.key }) {
            if byNumber[number] == nil {
                problems.append("split save \(number): its audit entry is stored, its SaveRecord is not")
            } else if totals.count > 1 {
                problems.append("save \(number) has \(totals.count) audit entries")
            }
        }
        for record in byNumber.values.sorted(by: { $0.number < $1.number }) where record.kind == SaveRecipe.Route.audited.rawValue {
            if audits[record.number]?.first != record.total {
                problems.append("split save \(record.number): its SaveRecord is stored, its audit entry is \(audits[record.number] == nil ? "not" : "wrong")")
            }
        }
        // Balances: exactly what the stored saves produce.
        let expected = SaveRecipe.balances(after: recipes, accounts: book.accounts)
        let wrong = expected.filter { contents.balances[$0.key] != $0.value }.map(\.key).sorted()
        if !wrong.isEmpty {
            problems.append(
                "\(wrong.count) account balance(s) differ from the stored saves (e.g. account \(wrong[0]): \(contents.balances[wrong[0]].map(String.init) ?? "missing"), expected \(expected[wrong[0]] ?? 0))"
            )
        }
        // Acknowledged saves.
        var lost = 0
        if acknowledged > 0 {
            lost = (1...acknowledged).filter { !present.contains($0) }.count
            if lost > 0 { problems.append("\(lost) acknowledged save(s) lost (acknowledged up to \(acknowledged), store has up to \(last))") }
        }
        return BankCheck(
            isCorrupt: corrupt, problems: problems, lastSave: last, lostAcknowledged: lost,
            committedNotAcknowledged: Int(max(0, last - max(0, acknowledged))), invariantHolds: invariant)
    }

    /// Reads the same facts through Strata and reports where they differ from the file.
    static func compareWithStrata(_ stack: BankStack, contents: StoreContents) -> [String] {
        let context = stack.newContext(name: "checker")
        do {
            return try context.performAndWait {
                var problems: [String] = []
                let records = try context.count(for: FetchRequest<ManagedObject>(entityName: "SaveRecord"))
                if records != contents.records.count { problems.append("Strata counts \(records) saves, the file has \(contents.records.count)") }
                let accounts = try context.fetch(FetchRequest<ManagedObject>(entityName: "Account"))
                let total = accounts.reduce(Int64(0)) { $0 + BankWorkload.int64($1, "balance") }
                if total != contents.totalBalance { problems.append("Strata reads a total balance of \(total), the file has \(contents.totalBalance)") }
                let last = contents.lastSaveNumber
                if last > 0 {
                    let request = FetchRequest<ManagedObject>(entityName: "SaveRecord")
                    request.predicate = ObjectPredicate(format: "number == %@", last)
                    let found = try context.fetch(request)
                    let transfers = (found.first?.value(forKey: "transfers") as? Set<ManagedObject>)?.count ?? -1
                    let byFetch = FetchRequest<ManagedObject>(entityName: "Transfer")
                    byFetch.predicate = ObjectPredicate(format: "record.number == %@", last)
                    let fetched = try context.count(for: byFetch)
                    let stored = contents.transfers.filter { $0.saveNumber == last }.count
                    if found.count != 1 || transfers != stored || fetched != stored {
                        problems.append("Strata reads save \(last) \(found.count) time(s) with \(transfers) transfers (\(fetched) by fetch); the file has \(stored)")
                    }
                }
                return problems
            }
        } catch {
            return ["Strata cannot read the store: \(error)"]
        }
    }

    private static func multiset(_ transfers: [PlannedTransfer]) -> [PlannedTransfer: Int] {
        var counts: [PlannedTransfer: Int] = [:]
        for transfer in transfers { counts[transfer, default: 0] += 1 }
        return counts
    }
}
