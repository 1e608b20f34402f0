import Foundation
import Strata
import StrataTestSupport
import Testing

/// Random byte strings and mutations of valid predicates never crash the parser: each input
/// gives a predicate or a syntax error, nothing else. 100,000 inputs per run (parsing only,
/// plus a round trip of what parses and a few in-memory evaluations). Replay with
/// `STRATA_DIFF_SEED=<seed>`.
@Suite("Parser robustness")
struct PredicateParserRobustnessTests {
    static let inputsPerTest = 50_000

    /// Pieces of the grammar, so random inputs get past the lexer often.
    static let tokens: [String] = [
        "a", "b.c", "name", "SELF", "$x", "%@", "%K", "%d", "%f", "%", "@count", "@sum.a", "==", "=", "!=", "<>", "<", "<=", ">",
        ">=", "=>", "=<", "AND", "&&", "OR", "||", "NOT", "!", "(", ")", "{", "}", "[", "]", "[c]", "[cd]", ",", ".", "+", "-",
        "*", "/", "**", ":", "ANY", "ALL", "NONE", "SOME", "IN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "BETWEEN", "TRUEPREDICATE", "FALSEPREDICATE", "nil", "YES", "NO", "0", "1", "-1", "1.5", "1e308", "0x1F", "9223372036854775808",
        "'x'", "\"y\"", "'", "\"", "\\", "\\u00e9", "SUBQUERY(", "FUNCTION(", "CAST(", "TERNARY(", "sum:(", "count:(", "now()",
        "#and", "é", "😀", " ", "\n", "FIRST", "LAST", "SIZE",
    ]

    @Test("random byte strings give a predicate or a syntax error")
    func randomBytes() {
        var random = QueryRandom(seed: DifferentialEngines.seed ^ 0xB17E5)
        var parsed = 0
        for index in 0..<Self.inputsPerTest {
            let input: String
            if index % 2 == 0 {
                let bytes = (0..<random.int(0...40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                input = String(decoding: bytes, as: UTF8.self)
            } else if index % 4 == 1 {
                input = (0..<random.int(1...12)).map { _ in random.pick(Self.tokens) }.joined(separator: random.chance(0.7) ? " " : "")
            } else {
                // "x op y" shapes joined by AND/OR, from random tokens: valid more often.
                input = (0..<random.int(1...3)).map { _ in
                    [random.pick(Self.tokens), random.pick(["==", "<", "IN", "BEGINSWITH[c]", "!=", "BETWEEN"]), random.pick(Self.tokens)].joined(separator: " ")
                }.joined(separator: random.pick([" AND ", " OR ", " && "]))
            }
            if check(input, arguments: [5, "k", 2.5], index: index, random: &random) { parsed += 1 }
        }
        // Some token soups are valid predicates: the test exercises more than the lexer.
        #expect(parsed > 200)
    }

    @Test("mutations of valid predicates give a predicate or a syntax error")
    func mutations() {
        var random = QueryRandom(seed: DifferentialEngines.seed ^ 0x3A7E)
        var generator = PredicateGenerator(seed: DifferentialEngines.seed ^ 0x3A7F)
        var parsed = 0
        var original = generator.next()
        for index in 0..<Self.inputsPerTest {
            if index % 20 == 0 { original = generator.next() }
            var scalars = Array(original.format.unicodeScalars)
            for _ in 0..<random.int(1...3) {
                let position = scalars.isEmpty ? 0 : random.int(0...(scalars.count - 1))
                switch random.int(0...5) {
                case 0 where !scalars.isEmpty:
                    scalars.removeSubrange(position..<min(scalars.count, position + random.int(1...6)))
                case 1:
                    scalars.insert(contentsOf: random.pick(Self.tokens).unicodeScalars, at: position)
                case 2 where !scalars.isEmpty:
                    scalars[position] = Unicode.Scalar(UInt8(truncatingIfNeeded: random.next() % 128))
                case 3 where scalars.count > 2:
                    let end = min(scalars.count, position + random.int(1...10))
                    scalars.insert(contentsOf: scalars[position..<end], at: random.int(0...scalars.count))
                case 4:
                    scalars = Array(scalars.prefix(position))
                default:
                    if let scalar = Unicode.Scalar(UInt32(random.next() % 0x11_0000)) { scalars.insert(scalar, at: position) }
                }
            }
            var input = ""
            input.unicodeScalars.append(contentsOf: scalars)
            if check(input, arguments: original.arguments, index: index, random: &random) { parsed += 1 }
        }
        #expect(parsed > Self.inputsPerTest / 20)
    }

    /// Parses `input`; a success must print back to an equal predicate. Returns whether it parsed.
    private func check(_ input: String, arguments: [Any], index: Int, random: inout QueryRandom) -> Bool {
        let predicate = ObjectPredicate(format: input, argumentArray: arguments)
        if let error = predicate.syntaxError {
            let length = input.unicodeScalars.count
            if !(0...length).contains(error.offset ?? -1) || error.sourceExcerpt?.contains("^") != true {
                Issue.record("Bad error for input #\(index) \(String(reflecting: input)) (STRATA_DIFF_SEED=\(DifferentialEngines.seed)): \(error)")
            }
            return false
        }
        do {
            let reparsed = try ObjectPredicate(validatingFormat: predicate.predicateFormat)
            if reparsed != predicate {
                Issue.record(
                    "Round trip changed input #\(index) \(String(reflecting: input)) (STRATA_DIFF_SEED=\(DifferentialEngines.seed))\n  printed:  \(predicate.predicateFormat)\n  reparsed: \(reparsed.predicateFormat)"
                )
            }
        } catch {
            Issue.record(
                "The printed form of input #\(index) \(String(reflecting: input)) does not parse (STRATA_DIFF_SEED=\(DifferentialEngines.seed))\n  printed: \(predicate.predicateFormat)\n  error: \(error)"
            )
        }
        if random.chance(0.2) {
            // Evaluating never crashes either (errors are fine).
            _ = try? predicate.evaluate(throwingWith: ["a": 1, "name": "émile", "b": ["c": 2.5]], substitutionVariables: ["x": 3])
        }
        return true
    }
}
