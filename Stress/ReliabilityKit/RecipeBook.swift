import Foundation
import StrataLocks
import StrataSQLite

/// The recipes of one seeded run, computed once each: what save `n` writes, for the workload
/// and for the checker. Thread-safe.
public final class RecipeBook: Sendable {
    /// The run's seed.
    public let seed: UInt64
    /// Accounts 1…`accounts` exist.
    public let accounts: Int
    /// Payload sizes.
    public let payloadScale: SaveRecipe.PayloadScale
    /// A route forced on every save (nil: the recipe picks one).
    public let route: SaveRecipe.Route?
    /// The most transfers a save makes.
    public let maximumTransfers: Int
    private let cache = StrataLock<[Int64: SaveRecipe]>([:])

    /// Creates the book of a run.
    public init(seed: UInt64, accounts: Int, payloadScale: SaveRecipe.PayloadScale = .mixed, route: SaveRecipe.Route? = nil, maximumTransfers: Int = 6) {
        self.seed = seed
        self.accounts = accounts
        self.payloadScale = payloadScale
        self.route = route
        self.maximumTransfers = maximumTransfers
    }

    /// The recipe of save `number`.
    public func recipe(_ number: Int64) -> SaveRecipe {
        if let cached = cache.withLock({ $0[number] }) { return cached }
        let recipe = SaveRecipe.make(seed: seed, number: number, accounts: accounts, payload: payloadScale, route: route, maximumTransfers: maximumTransfers)
        cache.withLock { $0[number] = recipe }
        return recipe
    }

    /// The arguments a child process needs to rebuild this book.
    public var arguments: [String] {
        var result = ["--seed", String(seed), "--accounts", String(accounts), "--max-transfers", String(maximumTransfers)]
        switch payloadScale {
        case .mixed: result += ["--payload", "mixed"]
        case .large: result += ["--payload", "large"]
        case .none: result += ["--payload", "none"]
        }
        if let route { result += ["--route", route.rawValue] }
        return result
    }
}
