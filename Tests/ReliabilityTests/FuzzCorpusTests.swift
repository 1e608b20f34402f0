import Foundation
import PredicateFuzzOracle
import Strata
import Testing

/// The predicate fuzzer's corpus (Fuzz/corpus/predicates), replayed through the fuzzer's own
/// oracle: every seed, and every crash input the fuzzer ever saved (crash-*), must pass.
@Suite("Predicate fuzz corpus")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/predicates")

    static var inputs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
    }

    @Test("Every corpus input passes the fuzzer's oracle")
    func corpusReplays() throws {
        let names = Self.inputs
        #expect(names.count >= 30)
        let stores = try FuzzStores()
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(name)))
            let problem = PredicateOracle.check(bytes, stores: stores)
            #expect(problem == nil, "\(name): \(problem ?? "")")
        }
    }

    @Test("The oracle's fetches run in both stores and agree on the seeds")
    func fetchesAreExercised() throws {
        let stores = try FuzzStores()
        let ann = stores.matches("name == 'Ann'")
        #expect(ann.memory == ["Ann"] && ann.sqlite == ["Ann"])
        var answered = 0
        for name in Self.inputs where name.hasPrefix("seed-") {
            let format = try String(contentsOf: Self.corpus.appendingPathComponent(name), encoding: .utf8)
            let result = stores.matches(format)
            if let memory = result.memory, let sqlite = result.sqlite {
                answered += 1
                #expect(memory == sqlite, "\(name): \(format)")
            }
        }
        #expect(answered >= 15)
    }

    @Test(
        "Nesting deeper than the limit is a syntax error, not a stack overflow",
        arguments: [
            String(repeating: "(", count: 3_000) + "age == 1" + String(repeating: ")", count: 3_000),
            String(repeating: "NOT ", count: 3_000) + "age == 1",
            "age IN " + String(repeating: "{", count: 3_000) + "1" + String(repeating: "}", count: 3_000),
            "age == " + String(repeating: "-", count: 3_000) + "1",
        ])
    func deepNesting(format: String) {
        #expect {
            _ = try ObjectPredicate(validatingFormat: format)
        } throws: { error in
            (error as? StrataError)?.message.contains("nested too deeply") ?? false
        }
    }

    @Test("A long left-associative chain is as deep as it is long: refused past the limit")
    func longChains() {
        let chain = "age == " + Array(repeating: "1", count: 150).joined(separator: " - ")
        #expect(throws: StrataError.self) { _ = try ObjectPredicate(validatingFormat: chain) }
        #expect(throws: StrataError.self) { _ = try ObjectExpression(validatingFormat: Array(repeating: "age", count: 150).joined(separator: " + ")) }
    }

    @Test(
        "The printed form of a tree just under the limit parses back (it parenthesises every level)",
        arguments: [
            String(repeating: "NOT ", count: 90) + "age == 1",
            "age == " + String(repeating: "-", count: 95) + "score",
            "age == " + Array(repeating: "score", count: 95).joined(separator: " - "),
            "age IN " + String(repeating: "{", count: 90) + "1" + String(repeating: "}", count: 90),
        ])
    func roundTripNearTheLimit(format: String) throws {
        let predicate = try ObjectPredicate(validatingFormat: format)
        let reparsed = try ObjectPredicate(validatingFormat: predicate.predicateFormat)
        #expect(reparsed == predicate)
    }

    @Test("Nesting up to the limit still parses")
    func nestingWithinTheLimit() throws {
        let format = String(repeating: "(", count: 60) + "age == 1" + String(repeating: ")", count: 60)
        let predicate = try ObjectPredicate(validatingFormat: format)
        #expect(predicate.evaluate(with: ["age": Int64(1)]))
    }

    /// `TERNARY(condition, a, b)` nested `levels` deep, each wrapped in `parentheses` pairs: the
    /// condition of every level starts with "(", which the parser reads first as a nested
    /// predicate and then, when a comparison follows the ")", as a parenthesised expression.
    static func nestedTernaries(levels: Int, parentheses: Int, closed: Bool = true) -> String {
        var expression = "age"
        for _ in 0..<levels {
            let inner = "TERNARY(" + expression + " == 1, 1, 2)"
            expression = String(repeating: "(", count: parentheses) + inner + (closed ? String(repeating: ")", count: parentheses) : "")
        }
        return expression + " + 0 == 1"
    }

    // Core Data's grammar lets "(" open either a predicate or an expression; the parser must
    // settle which without re-reading the rest of the string once per reading. The fuzzer found
    // 270 bytes of parentheses and TERNARYs that took a minute (Fuzz/corpus/predicates/
    // crash-960fedf30d1bd152.txt), then three that also reach the nesting limit
    // (crash-699d87d013e82383.txt, crash-a4ab339540791a7f.txt, crash-d4a71c1729a87151.txt).
    @Test("Parentheses around nested TERNARYs parse once per token", .timeLimit(.minutes(1)))
    func backtrackingIsMemoized() throws {
        let deep = try ObjectPredicate(validatingFormat: Self.nestedTernaries(levels: 6, parentheses: 12))
        let flat = try ObjectPredicate(validatingFormat: Self.nestedTernaries(levels: 6, parentheses: 0))
        #expect(deep == flat)
        #expect(deep.evaluate(with: ["age": Int64(1)]))
        #expect(throws: StrataError.self) {
            _ = try ObjectPredicate(validatingFormat: Self.nestedTernaries(levels: 6, parentheses: 12, closed: false))
        }
        // Past the nesting limit the parse stops at once instead of trying the other reading of
        // every "(" on the way out (the long run's next three timeouts, in the corpus too).
        #expect {
            _ = try ObjectPredicate(validatingFormat: Self.nestedTernaries(levels: 6, parentheses: 60, closed: false))
        } throws: { error in
            (error as? StrataError)?.message.contains("nested too deeply") ?? false
        }
    }

    // Core Data types a TERNARY by its values. The kind of a TERNARY was read from its first
    // value twice, so a chain of TERNARYs nested in their first values cost 2^depth to bind
    // (found reading the predicate fuzzer's profile: the binder's `kind` allocated on every call).
    @Test("A chain of TERNARYs nested in their first values binds in linear time", .timeLimit(.minutes(1)))
    func ternaryChainBindsOnce() throws {
        func chain(_ levels: Int) -> String {
            var expression = "age"
            for _ in 0..<levels { expression = "TERNARY(age >= 0, " + expression + ", 2)" }
            return expression + " == age"
        }
        let stores = try FuzzStores()
        // 2^40 reads before the fix. The in-memory store answers; SQLite's parser has a fixed
        // stack and refuses CASEs nested this deep, which is an error, not an answer.
        let deep = stores.matches(chain(40))
        #expect(deep.memory?.isEmpty == false)
        #expect(deep.sqlite == nil || deep.sqlite == deep.memory)
        let shallow = stores.matches(chain(10))
        #expect(shallow.memory?.isEmpty == false)
        #expect(shallow.memory == shallow.sqlite)
    }
}
