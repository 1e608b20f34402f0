import Foundation
import Strata

/// The writers: root contexts editing records, a child pushing its saves up through its
/// parent, and a teller moving money. Every save that reaches the store is published to the
/// readers with the versions it wrote.
extension LargeWorkload {
    /// Fetches `keys` in `context` with fresh values and adds one to each version. Returns the
    /// records, or nil (and a failure) when not every key was found.
    func bump(_ keys: [Int64], in context: ManagedObjectContext) throws -> [Record]? {
        let request = LargeModel.records(keys: keys)
        request.returnsObjectsAsFaults = false
        request.shouldRefreshRefetchedObjects = true
        let records = try context.fetch(request)
        guard records.count == keys.count else {
            counters.fail("\(context.name ?? "?"): fetching \(keys.count) keys found \(records.count) records")
            return nil
        }
        for record in records { record.version += 1 }
        return records
    }

    /// What a save published: the records' IDs and versions (read before the save).
    func published(_ records: [Record]) -> PublishedSave {
        PublishedSave(ids: Set(records.map(\.objectID)), versions: Dictionary(records.map { ($0.key, $0.version) }, uniquingKeysWith: max))
    }

    /// A root writer: edits `editsPerSave` records and saves, retrying a conflict on fresh values.
    func editRecords(in context: ManagedObjectContext, random: inout SeededGenerator, tally: inout WorkerTally) {
        let keys = pickKeys(configuration.editsPerSave, random: &random)
        let start = DispatchTime.now()
        for _ in 0..<6 {
            let outcome: (save: PublishedSave?, retry: Bool) = context.performAndWait {
                defer { context.reset() }
                do {
                    guard let records = try bump(keys, in: context) else { return (nil, false) }
                    let save = published(records)
                    try context.save()
                    return (save, false)
                } catch {
                    let conflict = counters.absorb(error, during: "editing records in \(context.name ?? "?")")
                    context.rollback()
                    return (nil, conflict)
                }
            }
            if let save = outcome.save {
                fanout.publish(save)
                tally.stats["writer: edit \(keys.count) + save", default: LatencyStats()].record(Self.seconds(since: start), rows: keys.count)
                tally.count("record edits saved", keys.count)
                return
            }
            if !outcome.retry { return }
            tally.count("conflicts retried")
        }
        tally.count("edits given up")
    }

    /// A child edits records (and, one time in three, moves money), saves into its parent, then
    /// the parent saves to the store: the push is published only when the parent's save landed.
    /// A parent whose save conflicts is rolled back, with the child's work.
    func push(child: ManagedObjectContext, parent: ManagedObjectContext, random: inout SeededGenerator, tally: inout WorkerTally) {
        let keys = pickKeys(configuration.editsPerPush, random: &random)
        let transfer = random.chance(1.0 / 3) ? pickTransfer(random: &random) : nil
        let start = DispatchTime.now()
        let childSaved: Bool = child.performAndWait {
            do {
                guard try bump(keys, in: child) != nil else {
                    child.rollback()
                    return false
                }
                if let transfer { _ = try moveMoney(in: child, transfer) }
                try child.save()
                return true
            } catch {
                // A record or account changed in the store since the child read it through its
                // parent: an optimistic-locking conflict (133020), counted, the push dropped.
                counters.absorb(error, during: "child save in \(child.name ?? "?")")
                child.rollback()
                return false
            }
        }
        let childSeconds = Self.seconds(since: start)
        var moved = false
        let save: PublishedSave? = parent.performAndWait {
            defer { parent.reset() }
            guard childSaved else { return nil }
            let records = parent.updatedObjects.compactMap { $0 as? Record }
            moved = parent.insertedObjects.contains { $0 is Transfer }
            let save = published(records)
            do {
                try parent.save()
                return save
            } catch {
                counters.absorb(error, during: "pushing \(parent.name ?? "?") up")
                parent.rollback()
                return nil
            }
        }
        child.performAndWait { child.reset() }
        guard let save else {
            tally.count(childSaved ? "pushes rolled back with their parent" : "pushes dropped at the child's save")
            return
        }
        fanout.publish(save)
        tally.stats["push: child.save()", default: LatencyStats()].record(childSeconds, rows: keys.count)
        tally.stats["push: child + parent save", default: LatencyStats()].record(Self.seconds(since: start), rows: keys.count)
        tally.count("record edits saved", save.versions.count)
        tally.count("pushes saved")
        if moved { tally.count("transfers saved") }
    }

    /// A teller: one transfer between two accounts in a root context, retried on conflicts.
    func teller(in context: ManagedObjectContext, random: inout SeededGenerator, tally: inout WorkerTally) {
        let transfer = pickTransfer(random: &random)
        let start = DispatchTime.now()
        for _ in 0..<6 {
            let outcome: (saved: Bool, retry: Bool) = context.performAndWait {
                defer { context.reset() }
                do {
                    guard try moveMoney(in: context, transfer) else { return (false, false) }
                    try context.save()
                    return (true, false)
                } catch {
                    let conflict = counters.absorb(error, during: "transfer in \(context.name ?? "?")")
                    context.rollback()
                    return (false, conflict)
                }
            }
            if outcome.saved {
                tally.stats["teller: transfer + save", default: LatencyStats()].record(Self.seconds(since: start), rows: 2)
                tally.count("transfers saved")
                return
            }
            if !outcome.retry { return }
            tally.count("conflicts retried")
        }
        tally.count("transfers given up")
    }

    /// A transfer between two different accounts, often among the first few (collisions).
    func pickTransfer(random: inout SeededGenerator) -> (from: Int64, to: Int64, amount: Int64) {
        let accounts = configuration.accounts
        let limit = random.chance(0.5) ? min(16, accounts) : accounts
        let from = random.index(limit)
        var to = random.index(limit - 1)
        if to >= from { to += 1 }
        return (Int64(from), Int64(to), Int64(1 + random.index(60)))
    }

    /// The read-modify-write of a transfer in `context` (on its queue), logged as a `Transfer`;
    /// false when the money is not there. The negative control may skip the debit.
    func moveMoney(in context: ManagedObjectContext, _ transfer: (from: Int64, to: Int64, amount: Int64)) throws -> Bool {
        let request = BankModel.accounts(numbers: [transfer.from, transfer.to])
        request.shouldRefreshRefetchedObjects = true
        let accounts = try context.fetch(request)
        guard let source = accounts.first(where: { $0.number == transfer.from }), let target = accounts.first(where: { $0.number == transfer.to }),
            source.balance >= transfer.amount
        else { return false }
        if control.shouldDebit() { source.balance -= transfer.amount }
        source.operations += 1
        target.balance += transfer.amount
        target.operations += 1
        let log = Transfer(context: context)
        log.fromAccount = transfer.from
        log.toAccount = transfer.to
        log.amount = transfer.amount
        return true
    }
}
