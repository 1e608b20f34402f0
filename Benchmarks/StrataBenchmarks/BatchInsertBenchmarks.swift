import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// A batch insert of N items into a fresh store vs the same rows with one prepared INSERT in
/// one transaction (`InsertBenchmarks.rawInsert`, on the same table shape without Strata's
/// `Z_ENT` index). Both sides compute each row's values from its index inside the
/// measurement; the Strata side hands them to a `BatchInsertRequest` (one transaction, one
/// prepared statement, no objects in a context) through a `managedObjectHandler` with typed
/// properties, or, in the smaller pair, as dictionaries it builds first. Each side then reads
/// back what it wrote (unmeasured) for the row check.
enum BatchInsertBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.insertLarge
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        suite.pair(
            "batch insert of \(Sizes.label(count)) rows (managedObjectHandler)", configuration: configuration, targets: [.ratioAtMost(1.5)],
            strata: { context in
                try strataBatchInsert(context, label: "batch-insert-object") { count in
                    var index = 0
                    return BatchInsertRequest(entityName: "Item") { (object: ManagedObject) -> Bool in
                        guard index < count, let item = object as? Item else { return true }
                        item.fill(datasetRow: index)
                        index += 1
                        return false
                    }
                }
            },
            raw: { context in try InsertBenchmarks.rawInsert(context, count: count) })

        // The dictionary form, smaller: the side builds its input dictionaries too (a million of
        // them would hold about half a gigabyte).
        let small = sizes.insertSmall
        suite.pair(
            "batch insert of \(Sizes.label(small)) rows (dictionaries)",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: small), targets: [.ratioAtMost(2.5)],
            strata: { context in
                try strataBatchInsert(context, label: "batch-insert-dictionary") { count in
                    var objects: [[String: Any]] = []
                    objects.reserveCapacity(count)
                    for index in 0..<count {
                        objects.append([
                            "name": Datasets.name(index), "number": Datasets.number(index), "score": Datasets.score(index), "flag": Datasets.flag(index),
                            "created": Date(timeIntervalSinceReferenceDate: Datasets.created(index)),
                        ])
                    }
                    return BatchInsertRequest(entityName: "Item", objects: objects)
                }
            },
            raw: { context in try InsertBenchmarks.rawInsert(context, count: small) })
    }

    /// Runs the request `make` builds for `context.scalingFactor` items on a fresh store (the
    /// building measured too), checking that every row was written.
    static func strataBatchInsert(_ context: BenchmarkContext, label: String, make: (Int) -> BatchInsertRequest) throws -> RowDigest {
        let url = Datasets.shared.freshURL(label)
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try Datasets.shared.context(for: url)
        let count = context.scalingFactor
        context.startMeasurement()
        try store.performAndWait {
            let insert = make(count)
            insert.resultType = .count
            guard (try store.execute(insert) as? BatchInsertResult)?.result as? Int == count else {
                throw RawDatabase.Failure(message: "the batch insert did not insert \(count) rows")
            }
        }
        context.stopMeasurement()
        return try ItemDigest.ofStore(url)
    }
}
