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

        suite.pair(
            "fire \(Sizes.label(faults)) faults one by one", configuration: configuration,
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: sizes.small, parents: parents, childrenPerParent: children) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.includesPropertyValues = false
                    request.fetchLimit = faults
                    let items = try store.fetch(request)
                    var total: Int64 = 0
                    for item in items { total += item.number }  // each access fires one fault
                    context.blackHole(total)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let db = try RawDatabase(path: url.path)
                let ids = try db.prepare("SELECT Z_PK FROM ZITEM ORDER BY Z_PK LIMIT ?")
                sqlite3_bind_int64(ids, 1, Int64(faults))
                var keys: [Int64] = []
                while sqlite3_step(ids) == SQLITE_ROW { keys.append(sqlite3_column_int64(ids, 0)) }
                sqlite3_finalize(ids)
                let select = try db.prepare("SELECT Z_PK, ZNAME, ZNUMBER, ZSCORE, ZFLAG, ZCREATED FROM ZITEM WHERE Z_PK = ?")
                var total: Int64 = 0
                for key in keys {
                    sqlite3_bind_int64(select, 1, key)
                    if sqlite3_step(select) == SQLITE_ROW { total += sqlite3_column_int64(select, 2) }
                    sqlite3_reset(select)
                }
                sqlite3_finalize(select)
                context.blackHole(total)
            })

        suite.pair(
            "fire \(Sizes.label(faults)) to-one faults with prefetching", configuration: configuration,
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: sizes.small, parents: parents, childrenPerParent: children) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let request = FetchRequest<Child>(entityName: "Child")
                    request.fetchLimit = faults
                    request.relationshipKeyPathsForPrefetching = ["parent"]
                    var total = 0
                    for child in try store.fetch(request) {
                        total += (child.value(forKey: "parent") as? Parent)?.name.utf8.count ?? 0
                    }
                    context.blackHole(total)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let db = try RawDatabase(path: url.path)
                let select = try db.prepare("SELECT c.Z_PK, c.ZNAME, c.ZVALUE, p.Z_PK, p.ZNAME FROM (SELECT * FROM ZCHILD ORDER BY Z_PK LIMIT ?) c LEFT JOIN ZPARENT p ON p.Z_PK = c.ZPARENT")
                sqlite3_bind_int64(select, 1, Int64(faults))
                var total = 0
                while sqlite3_step(select) == SQLITE_ROW { total += select.text(4).utf8.count }
                sqlite3_finalize(select)
                context.blackHole(total)
            })

        suite.pair(
            "prefetch to-many over \(Sizes.label(parents)) parents", configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 3, scalingFactor: parents),
            setUp: { context in context.userInfo["url"] = try Datasets.shared.store(items: sizes.small, parents: parents, childrenPerParent: children) },
            strata: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let store = try Datasets.shared.context(for: url)
                try store.performAndWait {
                    let request = FetchRequest<Parent>(entityName: "Parent")
                    request.relationshipKeyPathsForPrefetching = ["children"]
                    var total = 0
                    for parent in try store.fetch(request) {
                        total += (parent.value(forKey: "children") as? Set<ManagedObject>)?.count ?? 0
                    }
                    context.blackHole(total)
                }
            },
            raw: { context in
                guard let url = context.userInfo["url"] as? URL else { return }
                let db = try RawDatabase(path: url.path)
                var parentsByKey: [Int64: (name: String, children: [Int64])] = [:]
                let parentSelect = try db.prepare("SELECT Z_PK, ZNAME FROM ZPARENT")
                while sqlite3_step(parentSelect) == SQLITE_ROW {
                    parentsByKey[sqlite3_column_int64(parentSelect, 0)] = (parentSelect.text(1), [])
                }
                sqlite3_finalize(parentSelect)
                let childSelect = try db.prepare("SELECT ZPARENT, Z_PK, ZNAME, ZVALUE FROM ZCHILD ORDER BY ZPARENT, Z_PK")
                var names: [Int64: String] = [:]
                while sqlite3_step(childSelect) == SQLITE_ROW {
                    let key = sqlite3_column_int64(childSelect, 1)
                    parentsByKey[sqlite3_column_int64(childSelect, 0)]?.children.append(key)
                    names[key] = childSelect.text(2)
                }
                sqlite3_finalize(childSelect)
                context.blackHole(parentsByKey.values.reduce(0) { $0 + $1.children.count } + names.count)
            })
    }
}
