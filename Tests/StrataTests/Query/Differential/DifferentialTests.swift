import Foundation
import Strata
import StrataTestSupport
import Testing

/// The heart of the query language's tests: random predicates run as SQL in a SQLite store and
/// in memory (an in-memory store, and a context whose objects are all unsaved) must select
/// exactly the same rows, in the same order when sorted; `evaluate(with:)` on fetched objects
/// (faults and realized ones) of both stores and on the unsaved objects must be true exactly for
/// the rows the SQL selects. Every generated predicate must also print as a format string that
/// parses back to an equal predicate. (`ReferenceDifferentialTests` adds a plain-Swift reference.)
///
/// Replay a failure with `STRATA_DIFF_SEED=<seed> swift test --skip-build --filter Differential`.
@Suite("Differential: SQL and in-memory engines agree")
struct DifferentialTests {
    static let shards = 4
    /// 4 × 5,000 predicates per run; `STRATA_DIFF_COUNT` changes the number per shard.
    static let predicatesPerShard = ProcessInfo.processInfo.environment["STRATA_DIFF_COUNT"].flatMap { Int($0) } ?? 5_000
    /// Every n-th predicate also runs with random sort descriptors, limit and offset (sorting
    /// 2,000 rows in memory costs several plain fetches).
    static let sortedEvery = 10
    /// Every n-th predicate also runs against the unsaved objects of a context.
    static let pendingEvery = 25
    /// Every n-th predicate is also evaluated with `evaluate(with:)` on a sample of each engine's
    /// objects (`objectSample` items, a third of the stored ones turned back into faults first).
    static let evaluateEvery = 10
    static let objectSample = 40

    static let sortKeys = ["str", "alt", "i16", "i32", "i64", "dbl", "flt", "dec", "day", "flag", "group.name", "group.rank", "group.region.name", "group.score"]

    @Test("random predicates select the same rows in SQL and in memory", arguments: 0..<shards)
    func randomPredicates(shard: Int) throws {
        let engines = try DifferentialEngines.shared.get()
        let seed = engines.seed &+ UInt64(shard) &* 0x1000_0001
        var generator = PredicateGenerator(seed: seed)
        var random = QueryRandom(seed: seed ^ 0xD1FF)
        let sqliteContext = engines.sqlite.newContext(name: "sqlite")
        let memoryContext = engines.memory.newContext(name: "memory")
        let objectEngines = [
            (try FixtureObjects(name: "SQLite objects", stack: engines.sqlite), engines.sqliteGroups),
            (try FixtureObjects(name: "in-memory store objects", stack: engines.memory), engines.memoryGroups),
            (try FixtureObjects(name: "unsaved objects", unsavedIn: engines.pendingContext), engines.pendingGroups),
        ]
        var mismatches = 0
        var failures = 0
        var matchedSomething = 0
        var timing: [UInt64] = [0, 0, 0, 0, 0, 0]
        defer {
            // STRATA_DIFF_TIMING=1 prints the CPU time each engine took.
            if ProcessInfo.processInfo.environment["STRATA_DIFF_TIMING"] != nil {
                print(
                    "shard \(shard): SQL \(timing[0] / 1_000_000) ms, in-memory store \(timing[1] / 1_000_000) ms, pending \(timing[2] / 1_000_000) ms; unsorted (\(timing[5])): SQL \(timing[3] / 1_000_000) ms, memory \(timing[4] / 1_000_000) ms"
                )
            }
        }
        for index in 0..<Self.predicatesPerShard {
            let generated = generator.next()
            let header = "STRATA_DIFF_SEED=\(engines.seed) shard \(shard) predicate #\(index)\n  format: \(generated)"
            let predicate = ObjectPredicate(format: generated.format, argumentArray: generated.arguments)
            if let error = predicate.syntaxError {
                Issue.record("The generator wrote a malformed predicate (\(header)): \(error)")
                continue
            }
            checkRoundTrip(predicate, header: header)
            let group = random.int(0...(DifferentialFixture.groupCount - 1))
            var sorts: [ObjectSortDescriptor] = []
            var limit = 0
            var offset = 0
            if index % Self.sortedEvery == 0 {
                for _ in 0..<random.int(1...3) {
                    let comparator = random.pick([ObjectSortDescriptor.Comparator.default, .caseInsensitive, .localizedStandard])
                    sorts.append(ObjectSortDescriptor(key: random.pick(Self.sortKeys), ascending: random.chance(0.5), comparator: comparator))
                }
                if random.chance(0.5) { limit = random.int(1...40) }
                if random.chance(0.3) { offset = random.int(1...30) }
            }
            let t0 = Self.cpuNanoseconds()
            let sql = answer(sqliteContext, predicate.withSubstitutionVariables(["G": engines.sqliteGroups[group]]), sorts: sorts, limit: limit, offset: offset)
            let t1 = Self.cpuNanoseconds()
            let memory = answer(memoryContext, predicate.withSubstitutionVariables(["G": engines.memoryGroups[group]]), sorts: sorts, limit: limit, offset: offset)
            let t2 = Self.cpuNanoseconds()
            timing[0] += t1 - t0
            timing[1] += t2 - t1
            if sorts.isEmpty {
                timing[3] += t1 - t0
                timing[4] += t2 - t1
                timing[5] += 1
            }
            if case .failed = sql { failures += 1 }
            if case .rows(let rows) = sql, !rows.isEmpty { matchedSomething += 1 }
            if !sql.agrees(with: memory) {
                mismatches += 1
                if mismatches <= 10 {
                    Issue.record(
                        "SQL and in-memory store disagree (\(header)\n  canonical: \(predicate)\n  sorts: \(sorts) limit \(limit) offset \(offset))\n  SQLite:    \(sql)\n  in-memory: \(memory)\n  only SQLite: \(difference(sql, memory))\n  only in-memory: \(difference(memory, sql))"
                    )
                }
                continue
            }
            var unsortedSQL: EngineAnswer?
            func unsorted() -> EngineAnswer {
                if let unsortedSQL { return unsortedSQL }
                var result = sql
                if !sorts.isEmpty || limit > 0 || offset > 0 {
                    // Only the plain predicate runs against the unsaved objects and in evaluate(with:).
                    result = answer(sqliteContext, predicate.withSubstitutionVariables(["G": engines.sqliteGroups[group]]), sorts: [], limit: 0, offset: 0)
                }
                unsortedSQL = result
                return result
            }
            if index % Self.evaluateEvery == 0 {
                let sample = (0..<Self.objectSample).map { _ in random.int(0...(DifferentialFixture.itemCount - 1)) }
                let faulting = Set(sample.filter { _ in random.chance(1.0 / 3) })
                let expected = unsorted()
                for (objects, groups) in objectEngines {
                    let substituted = predicate.withSubstitutionVariables(["G": groups[group]])
                    let keys = Set(sample.map { Int64($0) + 1 })
                    let agrees: Bool
                    let evaluated: String
                    if case .failed = expected {
                        // A predicate a fetch rejects is false for every object.
                        agrees = objects.allFalse(substituted, indexes: sample)
                        evaluated = agrees ? "false for all" : "true for some"
                    } else {
                        let answer = objects.evaluate(substituted, indexes: Array(keys.map { Int($0) - 1 }), faulting: objects.stored ? faulting : [])
                        agrees = answer == expected.restricted(to: keys)
                        evaluated = "\(answer)"
                    }
                    if !agrees {
                        mismatches += 1
                        if mismatches <= 10 {
                            Issue.record(
                                "SQL and evaluate(with:) on \(objects.name) disagree (\(header)\n  canonical: \(predicate))\n  SQLite:           \(expected.restricted(to: keys))\n  evaluate(with:):  \(evaluated)"
                            )
                        }
                    }
                }
            }
            if index % Self.pendingEvery == 0 {
                let t3 = Self.cpuNanoseconds()
                defer { timing[2] += Self.cpuNanoseconds() - t3 }
                let pending = pendingAnswer(engines, predicate.withSubstitutionVariables(["G": engines.pendingGroups[group]]))
                let unsorted = unsorted()
                if !unsorted.agrees(with: pending) {
                    mismatches += 1
                    if mismatches <= 10 {
                        Issue.record(
                            "SQL and unsaved objects disagree (\(header)\n  canonical: \(predicate))\n  SQLite:  \(unsorted)\n  pending: \(pending)\n  only SQLite: \(difference(unsorted, pending))\n  only pending: \(difference(pending, unsorted))"
                        )
                    }
                }
            }
        }
        #expect(mismatches == 0, "\(mismatches) disagreements; replay with STRATA_DIFF_SEED=\(engines.seed)")
        // The generator must mostly write valid, selective predicates, or the test proves little.
        #expect(failures < Self.predicatesPerShard / 20, "\(failures) of \(Self.predicatesPerShard) predicates failed in both engines")
        #expect(matchedSomething > Self.predicatesPerShard / 3, "only \(matchedSomething) predicates matched any row")
    }

    /// `description` → parse → an equal predicate.
    private func checkRoundTrip(_ predicate: ObjectPredicate, header: String) {
        let text = predicate.predicateFormat
        do {
            let reparsed = try ObjectPredicate(validatingFormat: text)
            if reparsed != predicate {
                Issue.record("Round trip changed the predicate (\(header))\n  printed:  \(text)\n  reparsed: \(reparsed)")
            }
        } catch {
            Issue.record("The printed predicate does not parse (\(header))\n  printed: \(text)\n  error: \(error)")
        }
    }

    /// Primary keys of the matching items, in fetch order.
    private func answer(_ context: ManagedObjectContext, _ predicate: ObjectPredicate, sorts: [ObjectSortDescriptor], limit: Int, offset: Int) -> EngineAnswer {
        let keys = (try? DifferentialEngines.shared.get().itemKeys) ?? [:]
        return context.performAndWait {
            let request = FetchRequest<ManagedObjectID>(entityName: "Item")
            request.resultType = .managedObjectIDResultType
            request.predicate = predicate
            request.sortDescriptors = sorts
            request.fetchLimit = limit
            request.fetchOffset = offset
            do {
                return .rows(try context.fetch(request).map { keys[$0] ?? DifferentialEngines.primaryKey($0) })
            } catch {
                return .failed("\(error)")
            }
        }
    }

    /// The matching unsaved items, as the primary keys the stores gave them (idx + 1).
    private func pendingAnswer(_ engines: DifferentialEngines, _ predicate: ObjectPredicate) -> EngineAnswer {
        let context = engines.pendingContext
        return context.performAndWait {
            let request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = predicate
            do {
                let rows = try context.fetch(request).map { (($0.value(forKey: "idx") as? Int64) ?? -2) + 1 }
                return .rows(rows.sorted())
            } catch {
                return .failed("\(error)")
            }
        }
    }

    static func cpuNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    private func difference(_ a: EngineAnswer, _ b: EngineAnswer) -> String {
        guard case .rows(let x) = a, case .rows(let y) = b else { return "-" }
        let only = Set(x).subtracting(y).sorted()
        return only.count > 12 ? "\(Array(only.prefix(12)))…" : "\(only)"
    }
}
