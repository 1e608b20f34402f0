import Foundation
import Strata
import StrataTestSupport
import Testing

/// Engine against an independent reference, not only engine against engine: predicates whose
/// meaning `ReferencePredicates.swift` writes out in plain Swift (aggregates over to-many key
/// paths above all) are run as SQL in a SQLite store, in memory in an in-memory store, against
/// a context's unsaved objects, and with `evaluate(with:)` on fetched objects of both stores
/// (a third turned back into faults first) and on the unsaved objects. Each must select exactly
/// the items the reference computes from the fixture's plain data.
///
/// Replay a failure with `STRATA_DIFF_SEED=<seed> swift test --skip-build --filter ReferenceDifferential`;
/// `STRATA_DIFF_REF_COUNT=<n>` sets the number of predicates per shard.
@Suite("Differential: SQL, in-memory engines and evaluate(with:) agree with a plain-Swift reference")
struct ReferenceDifferentialTests {
    static let shards = 4
    static let predicatesPerShard = ProcessInfo.processInfo.environment["STRATA_DIFF_REF_COUNT"].flatMap { Int($0) } ?? 200
    /// Items `evaluate(with:)` is checked on per predicate and engine (all 2,000 for the unsaved
    /// objects, which evaluate cheaply).
    static let objectSample = 100

    @Test("reference predicates select the same items in every engine and in plain Swift", arguments: 0..<shards)
    func referencePredicates(shard: Int) throws {
        let engines = try DifferentialEngines.shared.get()
        let seed = engines.seed &+ UInt64(shard) &* 0x2000_0003 ^ 0x5EF
        var generator = ReferencePredicateGenerator(seed: seed)
        var random = QueryRandom(seed: seed ^ 0xE7A1)
        let data = engines.data
        let stores = [
            ("SQLite", engines.sqlite.newContext(name: "sqlite reference")),
            ("in-memory store", engines.memory.newContext(name: "memory reference")),
        ]
        let sqliteObjects = try FixtureObjects(name: "SQLite objects", stack: engines.sqlite)
        let memoryObjects = try FixtureObjects(name: "in-memory store objects", stack: engines.memory)
        // The shard's own context of unsaved objects (the shared one would serialize the shards).
        let pendingStack = try TestStack(model: engines.model, kind: .inMemory, recordsSQL: false)
        let pendingContext = pendingStack.newContext(name: "reference unsaved objects")
        let model = engines.model
        try pendingContext.performAndWait { try DifferentialFixture.populate(pendingContext, model: model, data: data) }
        let unsavedObjects = try FixtureObjects(name: "unsaved objects", unsavedIn: pendingContext)
        let allItems = Array(0..<DifferentialFixture.itemCount)
        var mismatches = 0
        // CPU time per step: store fetches, fetch over unsaved objects, reference, evaluate(with:)
        // on SQLite objects, in-memory store objects and unsaved objects.
        var timing = [UInt64](repeating: 0, count: 6)
        defer {
            // STRATA_DIFF_TIMING=1 prints it.
            if ProcessInfo.processInfo.environment["STRATA_DIFF_TIMING"] != nil {
                let steps = ["fetches", "unsaved fetch", "reference", "SQLite objects", "memory objects", "unsaved objects"]
                print("reference shard \(shard): " + zip(steps, timing).map { "\($0) \($1 / 1_000_000) ms" }.joined(separator: ", "))
            }
        }
        var matchedSome = 0
        var matchedNotAll = 0
        for index in 0..<Self.predicatesPerShard {
            let generated = generator.next()
            let header = "STRATA_DIFF_SEED=\(engines.seed) reference shard \(shard) predicate #\(index)\n  format: \(generated)"
            let predicate = ObjectPredicate(format: generated.format, argumentArray: generated.arguments)
            if let error = predicate.syntaxError {
                Issue.record("The reference generator wrote a malformed predicate (\(header)): \(error)")
                continue
            }
            var t = DifferentialTests.cpuNanoseconds()
            func lap(_ i: Int) {
                let now = DifferentialTests.cpuNanoseconds()
                timing[i] += now - t
                t = now
            }
            let expected = EngineAnswer.rows(data.items.filter { generated.test(data, $0) }.map { $0.idx + 1 })
            lap(2)
            if case .rows(let rows) = expected {
                if !rows.isEmpty { matchedSome += 1 }
                if rows.count < DifferentialFixture.itemCount { matchedNotAll += 1 }
            }
            func check(_ engine: String, _ answer: EngineAnswer, _ reference: EngineAnswer) {
                guard answer != reference else { return }
                mismatches += 1
                if mismatches <= 10 {
                    Issue.record(
                        "\(engine) and the reference disagree (\(header)\n  canonical: \(predicate))\n  reference: \(reference)\n  \(engine): \(answer)\n  only reference: \(difference(reference, answer))\n  only \(engine): \(difference(answer, reference))"
                    )
                }
            }
            for (name, context) in stores {
                check("fetch (\(name))", fetch(context, predicate), expected)
            }
            lap(0)
            check("fetch (unsaved objects)", fetch(pendingContext, predicate, readingIndexes: true), expected)
            lap(1)
            let sample = Array(Set((0..<Self.objectSample).map { _ in random.int(0...(DifferentialFixture.itemCount - 1)) })).sorted()
            let faulting = Set(sample.filter { _ in random.chance(1.0 / 3) })
            let sampled = expected.restricted(to: Set(sample.map { Int64($0) + 1 }))
            check("evaluate(with:) on \(sqliteObjects.name)", sqliteObjects.evaluate(predicate, indexes: sample, faulting: faulting), sampled)
            lap(3)
            check("evaluate(with:) on \(memoryObjects.name)", memoryObjects.evaluate(predicate, indexes: sample, faulting: faulting), sampled)
            lap(4)
            check("evaluate(with:) on \(unsavedObjects.name)", unsavedObjects.evaluate(predicate, indexes: allItems), expected)
            lap(5)
        }
        #expect(mismatches == 0, "\(mismatches) disagreements; replay with STRATA_DIFF_SEED=\(engines.seed)")
        // The generator must mostly write selective predicates, or the test proves little.
        #expect(matchedSome > Self.predicatesPerShard / 3, "only \(matchedSome) predicates matched any item")
        #expect(matchedNotAll > Self.predicatesPerShard / 2, "only \(matchedNotAll) predicates left out some item")
    }

    /// The primary keys (`idx + 1`) of the items a fetch selects, ascending.
    private func fetch(_ context: ManagedObjectContext, _ predicate: ObjectPredicate, readingIndexes: Bool = false) -> EngineAnswer {
        context.performAndWait {
            do {
                if readingIndexes {
                    // Unsaved objects have temporary IDs: read their idx.
                    let request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.predicate = predicate
                    return .rows(try context.fetch(request).map { (($0.value(forKey: "idx") as? Int64) ?? -2) + 1 }.sorted())
                }
                let request = FetchRequest<ManagedObjectID>(entityName: "Item")
                request.resultType = .managedObjectIDResultType
                request.predicate = predicate
                return .rows(try context.fetch(request).map { DifferentialEngines.primaryKey($0) }.sorted())
            } catch {
                return .failed("\(error)")
            }
        }
    }

    private func difference(_ a: EngineAnswer, _ b: EngineAnswer) -> String {
        guard case .rows(let x) = a, case .rows(let y) = b else { return "-" }
        let only = Set(x).subtracting(y).sorted()
        return only.count > 12 ? "\(Array(only.prefix(12)))…" : "\(only)"
    }
}
