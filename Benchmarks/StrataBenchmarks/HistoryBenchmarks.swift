import BenchmarkHarness
import Foundation
import Strata

/// What persistent history tracking costs a save: the same Strata save with
/// `PersistentStoreOption.persistentHistoryTracking` on (the "strata" side) and off (the
/// "raw" side, here plain Strata, not hand-written SQL), in one run. Two saves: N inserts into a
/// fresh store, and N fetched objects edited and saved. Both sides leave the same rows (the row
/// check); the tracked side also checks, unmeasured, that its save recorded one transaction
/// with one change per object.
enum HistoryBenchmarks {
    static let tracking: [String: any Sendable] = [PersistentStoreOption.persistentHistoryTracking: true]

    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.insertSmall
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        suite.pair(
            "insert \(Sizes.label(count)) + save, history tracking on vs off", configuration: configuration, targets: [.ratioAtMost(1.3)],
            strata: { context in try insertAndSave(context, options: tracking) },
            raw: { context in try insertAndSave(context, options: [:]) })

        let updates = sizes.updates
        suite.pair(
            "edit each of \(Sizes.label(updates)) fetched objects + one save, history tracking on vs off",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: updates), targets: [.ratioAtMost(1.3)],
            setUp: { context in
                let url = try Datasets.shared.privateStore(items: updates, label: "history-update-\(context.pairSide?.rawValue ?? "side")")
                context.userInfo["url"] = url
            },
            tearDown: { context in
                if let url = context.userInfo["url"] as? URL { try? FileManager.default.removeItem(at: url) }
            },
            strata: { context in try editAndSave(context, options: tracking) },
            raw: { context in try editAndSave(context, options: [:]) })
    }

    /// Inserts `scalingFactor` items into a fresh store (added with `options`) and saves once.
    static func insertAndSave(_ context: BenchmarkContext, options: [String: any Sendable]) throws -> RowDigest {
        let url = Datasets.shared.freshURL(options.isEmpty ? "history-off" : "history-on")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try Datasets.shared.context(for: url, options: options)
        context.startMeasurement()
        try store.performAndWait {
            for index in 0..<context.scalingFactor {
                let item = Item(context: store)
                item.fill(datasetRow: index)
            }
            try store.save()
            store.reset()
        }
        context.stopMeasurement()
        if !options.isEmpty { try checkHistory(in: store, changes: context.scalingFactor) }
        return try ItemDigest.ofStore(url)
    }

    /// Fetches every item of the side's store (added with `options`), `score += 1` on each, one
    /// save.
    static func editAndSave(_ context: BenchmarkContext, options: [String: any Sendable]) throws -> RowDigest {
        let url = try context.require("url", as: URL.self)
        let (store, token) = try context.unmeasured {
            let store = try Datasets.shared.context(for: url, options: options)
            return (store, store.persistentStoreCoordinator?.currentPersistentHistoryToken())
        }
        try store.performAndWait {
            for item in try store.fetch(FetchRequest<Item>(entityName: "Item")) { item.score += 1 }
            try store.save()
            context.unmeasured { store.reset() }
        }
        try context.unmeasured {
            if !options.isEmpty { try checkHistory(in: store, after: token, changes: context.scalingFactor) }
        }
        return try context.unmeasured { try ItemDigest.ofStore(url) }
    }

    /// Throws unless the history after `token` is one transaction with `changes` changes.
    static func checkHistory(in store: ManagedObjectContext, after token: PersistentHistoryToken? = nil, changes: Int) throws {
        try store.performAndWait {
            let count = PersistentHistoryChangeRequest.fetchHistory(after: token)
            count.resultType = .count
            let transactions = PersistentHistoryChangeRequest.fetchHistory(after: token)
            transactions.resultType = .transactionsOnly
            let recorded = (try store.execute(count) as? PersistentHistoryResult)?.result as? Int
            let list = (try store.execute(transactions) as? PersistentHistoryResult)?.result as? [PersistentHistoryTransaction]
            guard recorded == changes, list?.count == 1 else {
                throw RawDatabase.Failure(message: "the tracked save recorded \(list?.count ?? 0) transaction(s) with \(recorded ?? 0) change(s), not 1 with \(changes)")
            }
        }
    }
}
