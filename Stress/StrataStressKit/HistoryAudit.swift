import Foundation
import Strata

/// The stress store records persistent history; at the end of a run its history must be
/// complete and in order: transaction numbers increase with non-decreasing timestamps, every
/// object's changes follow insert → updates → delete (nothing changes an object before its
/// insert or after its delete, nothing inserts it twice), and replaying the inserts and deletes
/// gives exactly the accounts and transfers the store holds. Root saves and batch requests
/// (inserts, updates, deletes) all write it.
public enum HistoryAudit {
    /// The problems found (empty: complete and in order) and the figures.
    public static func check(reader: ManagedObjectContext) -> (problems: [String], figures: String) {
        reader.performAndWait {
            defer { reader.reset() }
            do {
                let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
                let transactions = (try reader.execute(request) as? PersistentHistoryResult)?.result as? [PersistentHistoryTransaction] ?? []
                var problems: [String] = []
                func problem(_ text: String) { if problems.count < 8 { problems.append(text) } }
                enum Life { case live, deleted }
                var lives: [ManagedObjectID: Life] = [:]
                var previous: PersistentHistoryTransaction?
                var changes = 0
                for transaction in transactions {
                    if let previous {
                        if transaction.transactionNumber <= previous.transactionNumber {
                            problem("transaction \(transaction.transactionNumber) follows \(previous.transactionNumber)")
                        }
                        if transaction.timestamp < previous.timestamp {
                            problem("transaction \(transaction.transactionNumber) is older than transaction \(previous.transactionNumber)")
                        }
                    }
                    previous = transaction
                    for change in transaction.changes ?? [] {
                        changes += 1
                        let id = change.changedObjectID
                        switch (change.changeType, lives[id]) {
                        case (.insert, nil): lives[id] = .live
                        case (.update, .live?): break
                        case (.delete, .live?): lives[id] = .deleted
                        case (let type, let life):
                            problem("transaction \(transaction.transactionNumber): \(type) of \(id.uriRepresentation().absoluteString), which is \(life.map { "\($0)" } ?? "not inserted yet")")
                        }
                    }
                }
                for entity in ["Account", "Transfer"] {
                    let request = FetchRequest<ManagedObjectID>(entityName: entity)
                    request.resultType = .managedObjectIDResultType
                    let stored = Set(try reader.fetch(request))
                    let replayed = Set(lives.filter { $0.value == .live && $0.key.entity.name == entity }.keys)
                    if stored != replayed {
                        problem(
                            "\(entity): the store holds \(stored.count) rows, replaying the history gives \(replayed.count) (\(stored.subtracting(replayed).count) missing from it, \(replayed.subtracting(stored).count) extra)"
                        )
                    }
                }
                return (problems, "\(transactions.count) transactions, \(changes) changes")
            } catch {
                return (["reading the history failed: \(error)"], "")
            }
        }
    }
}
