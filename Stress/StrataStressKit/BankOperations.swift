import Foundation
import Strata

/// The operations that change data: transfers, opening and closing accounts, labels. Each is
/// one block on its context — read, change, save (into the parent, or the store for a root) —
/// so no merge can run between the read and the save; a conflict rolls the block's work back
/// and the whole operation is retried on fresh values.
extension BankWorkload {
    /// What one attempt of an operation came to.
    enum Attempt {
        case done, skipped, retry, failed
    }

    /// Runs `body` then `save()` in one block of `index`'s context, retrying on conflicts.
    /// Returns whether it was saved.
    @discardableResult
    func transact(at index: Int, _ what: String, _ body: (ManagedObjectContext) throws -> Bool) -> Bool {
        let context = tree[index]
        for _ in 0..<Self.maximumAttempts {
            let attempt: Attempt = context.performAndWait {
                do {
                    guard try body(context) else {
                        context.rollback()
                        return .skipped
                    }
                    try context.save()
                    return .done
                } catch {
                    let conflict = counters.absorb(error, during: "\(what) in \(context.name ?? "?")")
                    recover(context, index: index, after: error)
                    return conflict ? .retry : .failed
                }
            }
            switch attempt {
            case .done: return true
            case .skipped, .failed: return false
            case .retry: continue
            }
        }
        counters.givenUp.add()
        return false
    }

    /// Moves a random amount between two accounts and logs it.
    func transfer(at index: Int, random: inout SeededGenerator) {
        let (from, to) = pickPair(&random)
        let amount = Int64(1 + random.index(60))
        if transact(at: index, "transfer", { context in try moveMoney(in: context, from: from, to: to, amount: amount) }) {
            counters.transfers.add()
            transfersByRole[roles[index]]?.add()
        }
    }

    /// The same, enqueued with asynchronous `perform` (one attempt; a conflict just rolls back).
    func asyncTransfer(at index: Int, seed: UInt64) {
        pendingAsync.add()
        tree[index].perform { [self] in
            defer { pendingAsync.add(-1) }
            var random = SeededGenerator(seed: seed)
            let (from, to) = pickPair(&random)
            let context = tree[index]
            do {
                if try moveMoney(in: context, from: from, to: to, amount: Int64(1 + random.index(60))) {
                    try context.save()
                    counters.transfers.add()
                    transfersByRole[roles[index]]?.add()
                } else {
                    context.rollback()
                }
            } catch {
                counters.absorb(error, during: "async transfer in \(context.name ?? "?")")
                recover(context, index: index, after: error)
            }
        }
    }

    /// The read-modify-write of a transfer, in `context` (on its queue). False when an account
    /// is missing or the money is not there.
    func moveMoney(in context: ManagedObjectContext, from: Int64, to: Int64, amount: Int64) throws -> Bool {
        let accounts = try context.fetch(BankModel.accounts(numbers: [from, to]))
        guard let source = accounts.first(where: { $0.number == from }), let target = accounts.first(where: { $0.number == to }),
            !source.isDeleted, !target.isDeleted
        else { return false }
        inspect(source, in: context)
        inspect(target, in: context)
        guard source.balance >= amount else { return false }
        if control.shouldDebit() { source.balance -= amount }
        source.operations += 1
        target.balance += amount
        target.operations += 1
        let log = Transfer(context: context)
        log.fromAccount = from
        log.toAccount = to
        log.amount = amount
        return true
    }

    /// Opens an account with nothing in it. One time in ten it reuses an initial account's
    /// number first, which the uniqueness constraint rejects (133021); the retry takes a new number.
    func openAccount(at index: Int, random: inout SeededGenerator) {
        var number = random.chance(0.1) ? Int64(random.index(initialAccounts)) : nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue
        for _ in 0..<3 {
            let chosen = number
            let context = tree[index]
            let attempt: Attempt = context.performAndWait {
                let account = Account(context: context)
                account.number = chosen
                account.balance = 0
                account.operations = 0
                do {
                    try context.save()
                    return .done
                } catch {
                    let conflict = counters.absorb(error, during: "opening account \(chosen) in \(context.name ?? "?")")
                    recover(context, index: index, after: error)
                    return conflict ? .retry : .failed
                }
            }
            switch attempt {
            case .done:
                counters.opened.add()
                return
            case .retry:
                number = nextNumber.wrappingAdd(1, ordering: .relaxed).oldValue
            case .skipped, .failed:
                return
            }
        }
    }

    /// Closes an account opened during the run: moves its money to an initial account (logged),
    /// then deletes it. A concurrent change to it makes the delete conflict, and it is retried.
    func closeAccount(at index: Int, random: inout SeededGenerator) {
        let heir = Int64(random.index(initialAccounts))
        let offset = random.index(8)
        let initial = Int64(initialAccounts)
        let closed = transact(at: index, "closing an account") { context in
            let request = BankModel.accounts()
            request.predicate = ObjectPredicate(format: "number >= %@", initial)
            request.fetchLimit = 1
            request.fetchOffset = offset
            guard let account = try context.fetch(request).first, !account.isDeleted else { return false }
            let heirs = try context.fetch(BankModel.accounts(numbers: [heir]))
            guard let target = heirs.first, !target.isDeleted else { return false }
            inspect(account, in: context)
            let amount = account.balance
            if amount > 0 {
                account.balance = 0
                account.operations += 1
                target.balance += amount
                target.operations += 1
                let log = Transfer(context: context)
                log.fromAccount = account.number
                log.toAccount = heir
                log.amount = amount
            }
            context.delete(account)
            return true
        }
        if closed { counters.closed.add() }
    }

    /// Changes the label of an initial account (never closed), under a trump merge policy.
    func relabel(at index: Int, random: inout SeededGenerator) {
        let number = Int64(random.index(initialAccounts))
        let label = "label-\(random.index(1_000))"
        transact(at: index, "relabelling") { context in
            guard let account = try context.fetch(BankModel.accounts(numbers: [number])).first, !account.isDeleted else { return false }
            account.label = label
            return true
        }
    }
}
