import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// A batch delete of every item (by a predicate every row matches, so both sides delete row by
/// row) vs the bare `DELETE` in one transaction; and a batch delete of every parent, cascading
/// to its 3 children, vs the hand-written two deletes. Each iteration deletes from its own copy
/// of the data set (copied and opened outside the measurement). Both sides' digests hold the
/// number of rows deleted and every item left, read back unmeasured.
enum BatchDeleteBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let count = sizes.large
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: count)
        suite.pair(
            "batch delete of \(Sizes.label(count)) rows", configuration: configuration, targets: [.ratioAtMost(1.2)],
            strata: { context in
                try strataDelete(context, source: try Datasets.shared.store(items: count), entity: "Item", predicate: "score >= 0", expected: count)
            },
            raw: { context in
                try rawDelete(context, source: try Datasets.shared.store(items: count), statements: ["DELETE FROM ZITEM WHERE ZSCORE >= 0"], expected: count)
            })

        let parents = sizes.parents
        let rows = parents * (1 + sizes.childrenPerParent)
        suite.pair(
            "batch delete of \(Sizes.label(parents)) parents cascading to \(sizes.childrenPerParent) children each",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: rows),
            strata: { context in
                let source = try Datasets.shared.store(items: 0, parents: parents, childrenPerParent: sizes.childrenPerParent)
                return try strataDelete(context, source: source, entity: "Parent", predicate: "TRUEPREDICATE", expected: rows)
            },
            raw: { context in
                let source = try Datasets.shared.store(items: 0, parents: parents, childrenPerParent: sizes.childrenPerParent)
                return try rawDelete(
                    context, source: source, statements: ["DELETE FROM ZCHILD WHERE ZPARENT IN (SELECT Z_PK FROM ZPARENT)", "DELETE FROM ZPARENT"], expected: rows)
            })
    }

    /// A copy of the data set at `source` for one iteration to delete from.
    private static func copy(_ source: URL) throws -> URL {
        let url = Datasets.shared.freshURL("batch-delete")
        try FileManager.default.copyItem(at: source, to: url)
        return url
    }

    private static func digest(deleted: Int, url: URL) throws -> RowDigest {
        var digest = try ItemDigest.ofStore(url)
        digest.add(Int64(deleted))
        return digest
    }

    private static func strataDelete(_ context: BenchmarkContext, source: URL, entity: String, predicate: String, expected: Int) throws -> RowDigest {
        let (url, store) = try context.unmeasured { () throws -> (URL, ManagedObjectContext) in
            let url = try copy(source)
            return (url, try Datasets.shared.context(for: url))
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let deleted = try store.performAndWait { () throws -> Int in
            let request = FetchRequest<ManagedObject>(entityName: entity)
            request.predicate = ObjectPredicate(format: predicate)
            let delete = BatchDeleteRequest(fetchRequest: request)
            delete.resultType = .resultTypeCount
            return (try store.execute(delete) as? BatchDeleteResult)?.result as? Int ?? -1
        }
        guard deleted == expected else { throw RawDatabase.Failure(message: "the batch delete deleted \(deleted) rows, not \(expected)") }
        return try context.unmeasured { try digest(deleted: deleted, url: url) }
    }

    private static func rawDelete(_ context: BenchmarkContext, source: URL, statements: [String], expected: Int) throws -> RowDigest {
        let (url, db) = try context.unmeasured { () throws -> (URL, RawDatabase) in
            let url = try copy(source)
            return (url, try RawDatabase(path: url.path))
        }
        defer { try? FileManager.default.removeItem(at: url) }
        var deleted = 0
        try db.execute("BEGIN IMMEDIATE")
        for sql in statements {
            try db.execute(sql)
            deleted += Int(sqlite3_changes(db.handle))
        }
        try db.execute("COMMIT")
        guard deleted == expected else { throw RawDatabase.Failure(message: "the raw deletes deleted \(deleted) rows, not \(expected)") }
        return try context.unmeasured { try digest(deleted: deleted, url: url) }
    }
}
