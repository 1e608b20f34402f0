import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// A batch update of every row (`score = score + 1`) vs the bare `UPDATE` in one transaction,
/// and the same change made by fetching, editing and saving every object vs the batch update
/// (the speed-up a batch update buys). Each side owns a copy of the data set; iteration k of
/// both sides leaves every score raised by k + 1, which the row check reads back (unmeasured).
enum BatchUpdateBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.large
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        let setUp: BenchmarkClosure = { context in
            context.userInfo["url"] = try Datasets.shared.privateStore(items: count, label: "batch-\(context.pairSide?.rawValue ?? "side")")
        }
        let tearDown: BenchmarkClosure = { context in
            if let url = context.userInfo["url"] as? URL { try? FileManager.default.removeItem(at: url) }
        }
        suite.pair(
            "batch update of \(Sizes.label(count)) rows", configuration: configuration, targets: [.ratioAtMost(1.2)], setUp: setUp, tearDown: tearDown,
            strata: { context in
                let url = try context.require("url", as: URL.self)
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let update = BatchUpdateRequest(entityName: "Item")
                    update.propertiesToUpdate = ["score": ObjectExpression(format: "score + 1")]
                    update.resultType = .updatedObjectsCountResultType
                    guard (try store.execute(update) as? BatchUpdateResult)?.result as? Int == count else {
                        throw RawDatabase.Failure(message: "the batch update did not update \(count) rows")
                    }
                }
                return try context.unmeasured { try ItemDigest.ofStore(url) }
            },
            raw: { context in
                let url = try context.require("url", as: URL.self)
                let db = try RawDatabase(path: url.path)
                try db.execute("BEGIN IMMEDIATE")
                try db.execute("UPDATE ZITEM SET ZSCORE = ZSCORE + 1, Z_OPT = Z_OPT + 1")
                try db.execute("COMMIT")
                return try context.unmeasured { try ItemDigest.ofStore(url) }
            })

        suite.pair(
            "fetch-edit-save of \(Sizes.label(count)) objects vs a batch update", configuration: configuration, setUp: setUp, tearDown: tearDown,
            strata: UpdateBenchmarks.fetchEditSave,
            raw: { context in
                let url = try context.require("url", as: URL.self)
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let update = BatchUpdateRequest(entityName: "Item")
                    update.propertiesToUpdate = ["score": ObjectExpression(format: "score + 1")]
                    _ = try store.execute(update)
                }
                return try context.unmeasured { try ItemDigest.ofStore(url) }
            })
    }
}
