import Foundation
import Strata
import StrataTestSupport
import Testing

/// Random dictionary fetches (grouping, aggregates over every numeric kind, arithmetic on
/// aggregates, having, distinct, sorts, limits) over the differential fixture's 2,000 items must
/// give the same dictionaries computed as SQL, by the in-memory store and over unsaved objects.
@Suite("Differential: dictionary results agree")
struct DictionaryDifferentialTests {
    static let requests = ProcessInfo.processInfo.environment["STRATA_DIFF_DICTIONARY_COUNT"].flatMap { Int($0) } ?? 150

    static let groupKeys = ["flag", "group.name", "group.region.name", "i16", "dec", "group.region.code", "day"]
    static let aggregates = [
        "count:(idx)", "count:(dbl)", "sum:(i32)", "sum:(i64)", "sum:(dbl)", "sum:(flt)", "sum:(dec)", "average:(i16)",
        "average:(dbl)", "average:(dec)", "min:(str)", "max:(str)", "min:(dbl)", "max:(dbl)", "min:(dec)", "max:(i64)",
        "max:(day)", "min:(group.rank)", "sum:(i32) / count:(i32)", "max:(i16) - min:(i16)", "sum:(tags.@count)",
        "max:(flt) * 2",
    ]
    static let plainKeys = ["str", "i32", "group.name", "dec", "flag", "dbl", "alt"]

    @Test("random dictionary fetches agree in SQL, the in-memory store and over unsaved objects")
    func randomDictionaryFetches() throws {
        let engines = try DifferentialEngines.shared.get()
        var random = QueryRandom(seed: engines.seed ^ 0xD1C7)
        var predicates = PredicateGenerator(seed: engines.seed ^ 0xD1C8)
        let contexts = [("SQLite", engines.sqlite.newContext()), ("in-memory", engines.memory.newContext()), ("pending", engines.pendingContext)]
        var failures = 0
        for index in 0..<Self.requests {
            let configure = makeRequest(&random, &predicates)
            var answers: [(String, String)] = []
            for (name, context) in contexts {
                let request = FetchRequest<NSDictionary>(entityName: "Item")
                request.resultType = .dictionaryResultType
                // The pending context's unsaved changes count only with the opt-in (Core Data's
                // dictionary results reflect the store alone).
                request.dictionaryResultsIncludePendingChanges = true
                configure.apply(request)
                let answer = context.performAndWait { () -> String in
                    do {
                        return try context.fetch(request).map(Self.render).joined(separator: "\n")
                    } catch {
                        return "error: \(error)"
                    }
                }
                answers.append((name, answer))
            }
            if answers.contains(where: { $0.1 != answers[0].1 }) {
                failures += 1
                if failures <= 5 {
                    let details: [String] = answers.map { name, answer in "--- \(name):\n" + String(answer.prefix(1500)) }
                    Issue.record("Dictionary results disagree (STRATA_DIFF_SEED=\(engines.seed) request #\(index)): \(configure)\n\(details.joined(separator: "\n"))")
                }
            }
        }
        #expect(failures == 0)
    }

    /// One random request's settings (the group variable, when used, is left unset: predicates
    /// with $G are replaced by TRUEPREDICATE).
    struct Configuration: CustomStringConvertible {
        var predicate: String?
        var predicateArguments: [Any]
        var properties: [String]
        var expressions: [(String, String)]
        var groupBy: [String]
        var having: String?
        var distinct: Bool
        var sorts: [(String, Bool)]
        var limit: Int
        var offset: Int

        func apply(_ request: FetchRequest<NSDictionary>) {
            if let predicate { request.predicate = ObjectPredicate(format: predicate, argumentArray: predicateArguments) }
            request.propertiesToFetch =
                properties
                + expressions.map { name, format in
                    ExpressionDescription(name: name, expression: (try? ObjectExpression(validatingFormat: format)) ?? ObjectExpression(forConstantValue: nil)) as Any
                }
            request.propertiesToGroupBy = groupBy.isEmpty ? nil : groupBy
            request.havingPredicate = having.map { ObjectPredicate(format: $0) }
            request.returnsDistinctResults = distinct
            request.sortDescriptors = sorts.map { ObjectSortDescriptor(key: $0.0, ascending: $0.1) }
            request.fetchLimit = limit
            request.fetchOffset = offset
        }

        var description: String {
            "predicate: \(predicate ?? "-") \(predicateArguments), properties: \(properties), expressions: \(expressions), groupBy: \(groupBy), having: \(having ?? "-"), distinct: \(distinct), sorts: \(sorts), limit \(limit) offset \(offset)"
        }
    }

    private func makeRequest(_ random: inout QueryRandom, _ predicates: inout PredicateGenerator) -> Configuration {
        var configuration = Configuration(
            predicate: nil, predicateArguments: [], properties: [], expressions: [], groupBy: [], having: nil, distinct: false,
            sorts: [], limit: 0, offset: 0)
        if random.chance(0.6) {
            let generated = predicates.next()
            if !generated.format.contains("$G") {
                configuration.predicate = generated.format
                configuration.predicateArguments = generated.arguments
            }
        }
        if random.chance(0.7) {
            // Grouped or aggregated.
            var keys: [String] = []
            for _ in 0..<random.int(0...2) {
                let key = random.pick(Self.groupKeys)
                if !keys.contains(key) { keys.append(key) }
            }
            configuration.groupBy = keys
            configuration.properties = keys
            for index in 0..<random.int(1...3) {
                configuration.expressions.append(("agg\(index)", random.pick(Self.aggregates)))
            }
            if !keys.isEmpty && random.chance(0.4) {
                configuration.having = random.pick(["agg0 > 3", "$agg0 != nil", "count:(idx) > 20", "agg0 == nil OR count:(str) < 50", "sum:(i16) < 100"])
            }
            configuration.distinct = random.chance(0.2)
            if random.chance(0.5) {
                let sortable = configuration.distinct ? keys + ["agg0"] : keys + ["agg0"]
                configuration.sorts = [(random.pick(sortable), random.chance(0.5))]
            }
        } else {
            var keys: [String] = []
            for _ in 0..<random.int(1...3) {
                let key = random.pick(Self.plainKeys)
                if !keys.contains(key) { keys.append(key) }
            }
            configuration.properties = keys
            configuration.distinct = random.chance(0.5)
            if random.chance(0.6) {
                configuration.sorts = [(random.pick(keys), random.chance(0.5))]
            }
        }
        if random.chance(0.4) { configuration.limit = random.int(1...30) }
        if random.chance(0.2) { configuration.offset = random.int(1...10) }
        return configuration
    }

    /// A dictionary as text: keys sorted; numbers by value (0 and -0 alike, NaN as "nan").
    static func render(_ dictionary: NSDictionary) -> String {
        let keys = dictionary.allKeys.compactMap { $0 as? String }.sorted()
        return keys.map { key in "\(key)=\(value(dictionary[key]))" }.joined(separator: " ")
    }

    private static func value(_ value: Any?) -> String {
        switch value {
        case let decimal as NSDecimalNumber: return "dec:" + decimal.stringValue
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if ["q", "l", "i", "s", "c", "Q", "L", "I", "S", "C"].contains(type) { return "int:\(number.int64Value)" }
            let double = number.doubleValue
            if double.isNaN { return "nan" }
            return double == 0 ? "0.0" : "\(double)"
        case let date as Date: return "date:\(date.timeIntervalSinceReferenceDate)"
        case let string as String: return String(reflecting: string)
        case let bool as Bool: return "\(bool)"
        case let other?: return "\(type(of: other)):\(other)"
        case nil: return "nil"
        }
    }
}
