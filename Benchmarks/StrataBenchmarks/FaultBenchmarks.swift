import BenchmarkHarness
import CSQLite
import Foundation
import Strata

/// Firing faults one by one vs prefetching, and to-many prefetching.
enum FaultBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let faults = sizes.faults
        let configuration = BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: faults)
        let parents = sizes.parents
        let children = sizes.childrenPerParent
        let setUp: BenchmarkClosure = { context in
            context.userInfo["url"] = try Datasets.shared.store(items: sizes.small, parents: parents, childrenPerParent: children)
        }

        suite.pair(
            "fire \(Sizes.label(faults)) faults one by one", configuration: configuration, targets: [.ratioAtMost(2.0)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.includesPropertyValues = false
                    request.fetchLimit = faults
                    let items = try store.fetch(request)
                    var digest = RowDigest()
                    for item in items { ItemDigest.add(item, to: &digest) }  // the first access fires the fault
                    return digest
                }
            },
            raw: { context in
                let db = try RawDatabase(path: try context.require("url", as: URL.self).path)
                let ids = try db.prepare("SELECT Z_PK FROM ZITEM ORDER BY Z_PK LIMIT ?")
                sqlite3_bind_int64(ids, 1, Int64(faults))
                var keys: [Int64] = []
                while sqlite3_step(ids) == SQLITE_ROW { keys.append(sqlite3_column_int64(ids, 0)) }
                sqlite3_finalize(ids)
                let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM WHERE Z_PK = ?")
                var digest = RowDigest()
                for key in keys {
                    sqlite3_bind_int64(select, 1, key)
                    if sqlite3_step(select) == SQLITE_ROW { ItemDigest.add(RawItem(row: select), to: &digest) }
                    sqlite3_reset(select)
                }
                sqlite3_finalize(select)
                return digest
            })

        suite.pair(
            "fire \(Sizes.label(faults)) to-one faults with prefetching", configuration: configuration, targets: [.ratioAtMost(3.0)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<Child>(entityName: "Child")
                    request.fetchLimit = faults
                    request.relationshipKeyPathsForPrefetching = ["parent"]
                    var digest = RowDigest()
                    for child in try store.fetch(request) {
                        var row = RowHasher()
                        row.combine(child.value)
                        row.combine((child.value(forKey: "parent") as? Parent)?.name ?? "")
                        digest.add(row)
                    }
                    return digest
                }
            },
            raw: { context in
                let db = try RawDatabase(path: try context.require("url", as: URL.self).path)
                let select = try db.prepare(
                    "SELECT c.Z_PK, c.ZNAME, c.ZVALUE, p.Z_PK, p.ZNAME FROM (SELECT * FROM ZCHILD ORDER BY Z_PK LIMIT ?) c LEFT JOIN ZPARENT p ON p.Z_PK = c.ZPARENT")
                sqlite3_bind_int64(select, 1, Int64(faults))
                var digest = RowDigest()
                while sqlite3_step(select) == SQLITE_ROW {
                    var row = RowHasher()
                    row.combine(sqlite3_column_int64(select, 2))
                    row.combine(select.text(4))
                    digest.add(row)
                }
                sqlite3_finalize(select)
                return digest
            })

        suite.pair(
            "prefetch to-many over \(Sizes.label(parents)) parents", configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5, scalingFactor: parents),
            targets: [.ratioAtMost(3.0)], setUp: setUp,
            strata: { context in
                let store = try Datasets.shared.context(for: try context.require("url", as: URL.self))
                return try store.performAndWait {
                    let request = FetchRequest<Parent>(entityName: "Parent")
                    request.relationshipKeyPathsForPrefetching = ["children"]
                    var digest = RowDigest()
                    for parent in try store.fetch(request) {
                        let members = parent.value(forKey: "children") as? Set<ManagedObject> ?? []
                        var row = RowHasher()
                        row.combine(parent.name)
                        row.combine(members.count)
                        digest.add(row)
                        for case let child as Child in members { digest.add(child.value) }
                    }
                    return digest
                }
            },
            raw: { context in
                let db = try RawDatabase(path: try context.require("url", as: URL.self).path)
                var parentsByKey: [Int64: (name: String, children: [Int64])] = [:]
                let parentSelect = try db.prepare("SELECT Z_PK, ZNAME FROM ZPARENT")
                while sqlite3_step(parentSelect) == SQLITE_ROW {
                    parentsByKey[sqlite3_column_int64(parentSelect, 0)] = (parentSelect.text(1), [])
                }
                sqlite3_finalize(parentSelect)
                let childSelect = try db.prepare("SELECT ZPARENT, Z_PK, ZNAME, ZVALUE FROM ZCHILD ORDER BY ZPARENT, Z_PK")
                var values: [Int64: (name: String, value: Int64)] = [:]
                while sqlite3_step(childSelect) == SQLITE_ROW {
                    let key = sqlite3_column_int64(childSelect, 1)
                    parentsByKey[sqlite3_column_int64(childSelect, 0)]?.children.append(key)
                    values[key] = (childSelect.text(2), sqlite3_column_int64(childSelect, 3))
                }
                sqlite3_finalize(childSelect)
                var digest = RowDigest()
                for parent in parentsByKey.values {
                    var row = RowHasher()
                    row.combine(parent.name)
                    row.combine(parent.children.count)
                    digest.add(row)
                    for key in parent.children { digest.add(values[key]?.value ?? 0) }
                }
                return digest
            })
    }
}
