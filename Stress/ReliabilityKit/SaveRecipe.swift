import Foundation
import StrataTestSupport

/// One planned transfer: `amount` moves from account `source` to account `target`.
public struct PlannedTransfer: Sendable, Hashable {
    /// The account the money leaves.
    public var source: Int64
    /// The account the money reaches.
    public var target: Int64
    /// How much moves (positive).
    public var amount: Int64
}

/// Everything save number `number` of a seeded run writes. The same seed and number always give
/// the same recipe, so a checker can recompute what any save in the store must contain.
public struct SaveRecipe: Sendable {
    /// How the save reaches the store.
    public enum Route: String, Sendable, CaseIterable {
        /// A root context saves straight to the store.
        case plain
        /// A child context saves into its root context, which then saves to the store.
        case chain
        /// The root context obtains permanent IDs first (a transaction of its own), then saves.
        case permanentIDs
        /// A root save that also inserts an AuditEntry (in the audit store of a two-store
        /// stack: one save, two store files). Never chosen at random.
        case audited
    }

    /// The save's number (1, 2, 3…).
    public let number: Int64
    /// The transfers, in order.
    public let transfers: [PlannedTransfer]
    /// The payload blob.
    public let payload: Data
    /// The route the save takes.
    public let route: Route

    /// The sum of the transfers' amounts.
    public var total: Int64 { transfers.reduce(0) { $0 + $1.amount } }
    /// The payload's FNV-1a checksum.
    public var checksum: Int64 { Checksum.fnv1a(payload) }

    /// Payload sizes: mostly small, some spanning several pages, a few large (overflow chains).
    public enum PayloadScale: Sendable {
        /// 0–2 KB mostly, up to 128 KB rarely.
        case mixed
        /// Always between 48 and 64 KB (fills a small disk quickly).
        case large
        /// No payload.
        case none
    }

    /// The recipe of save `number` for `seed` over accounts 1…`accounts`.
    public static func make(seed: UInt64, number: Int64, accounts: Int, payload scale: PayloadScale = .mixed, route: Route? = nil, maximumTransfers: Int = 6) -> SaveRecipe {
        var random = SeededRandom(seed: seed, stream: UInt64(bitPattern: number))
        let count = Int.random(in: 1...max(1, maximumTransfers), using: &random)
        var transfers: [PlannedTransfer] = []
        for _ in 0..<count {
            let source = Int64.random(in: 1...Int64(accounts), using: &random)
            var target = Int64.random(in: 1...Int64(accounts), using: &random)
            if target == source { target = source % Int64(accounts) + 1 }
            transfers.append(PlannedTransfer(source: source, target: target, amount: Int64.random(in: 1...500, using: &random)))
        }
        let size: Int
        switch scale {
        case .none: size = 0
        case .large: size = Int.random(in: 48_000...64_000, using: &random)
        case .mixed:
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 70 {
                size = Int.random(in: 0...2_048, using: &random)
            } else if roll < 96 {
                size = Int.random(in: 2_048...16_384, using: &random)
            } else {
                size = Int.random(in: 16_384...131_072, using: &random)
            }
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var index = 0
        while index < size {
            var word = random.next()
            for _ in 0..<8 where index < size {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        let chosenRoute =
            route
            ?? {
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1: return .chain
                case 2: return .permanentIDs
                default: return .plain
                }
            }()
        return SaveRecipe(number: number, transfers: transfers, payload: Data(bytes), route: chosenRoute)
    }

    /// The balances after `recipes` were applied to accounts 1…`accounts` holding
    /// ``BankModel/initialBalance`` each.
    public static func balances(after recipes: [SaveRecipe], accounts: Int) -> [Int64: Int64] {
        var balances: [Int64: Int64] = [:]
        for number in 1...Int64(max(1, accounts)) { balances[number] = BankModel.initialBalance }
        for recipe in recipes {
            for transfer in recipe.transfers {
                balances[transfer.source, default: 0] -= transfer.amount
                balances[transfer.target, default: 0] += transfer.amount
            }
        }
        return balances
    }
}
