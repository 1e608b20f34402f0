import BenchmarkHarness
import CJemalloc
import Foundation
import Strata
import StrataLocks
import StrataSQLite

/// Live heap bytes from jemalloc (`stats.allocated`, refreshed through `epoch`).
enum JemallocProbe {
    static func allocatedBytes() -> Int? {
        var epoch: UInt64 = 1
        var epochOut: UInt64 = 0
        var epochSize = MemoryLayout<UInt64>.size
        guard mallctl("epoch", &epochOut, &epochSize, &epoch, MemoryLayout<UInt64>.size) == 0 else { return nil }
        var allocated = 0
        var size = MemoryLayout<Int>.size
        guard mallctl("stats.allocated", &allocated, &size, nil, 0) == 0 else { return nil }
        return allocated
    }
}

/// The net bytes a benchmark body left allocated, handed to its target check.
final class LeakRecord: Sendable {
    private let bytes = StrataLock<[Int]>([])
    func add(_ value: Int) { bytes.withLock { $0.append(value) } }
    var worst: Int? { bytes.withLock { $0.max(by: { abs($0) < abs($1) }) } }
}

/// A context that fetched and touched many objects gives its memory back after `reset()`.
enum MemoryBenchmarks {
    static func register(in suite: BenchmarkSuite, sizes: Sizes) {
        let rows = sizes.large / 10
        let record = LeakRecord()
        suite.benchmark(
            "fetch \(Sizes.label(rows)) materialized, reset: heap back to baseline",
            configuration: BenchmarkConfiguration(warmupIterations: 1, maxIterations: 5),
            setUp: { context in
                let url = try Datasets.shared.store(items: rows)
                context.userInfo["store"] = try Datasets.shared.context(for: url)
            },
            targets: [
                .custom("live heap after reset within ±1 MiB of before the fetch") { _ in
                    guard let leaked = record.worst else { return (false, "jemalloc statistics unavailable") }
                    return (abs(leaked) <= 1_048_576, "net bytes after reset: \(leaked)")
                }
            ],
            body: { context in
                let store = try context.require("store", as: ManagedObjectContext.self)
                let before = JemallocProbe.allocatedBytes()
                try store.performAndWait {
                    let request = FetchRequest<Item>(entityName: "Item")
                    request.returnsObjectsAsFaults = false
                    var total = 0.0
                    for item in try store.fetch(request) { total += item.score }
                    context.blackHole(total)
                    store.reset()
                }
                if !context.isWarmup, let before, let after = JemallocProbe.allocatedBytes() { record.add(after - before) }
            })
    }
}
