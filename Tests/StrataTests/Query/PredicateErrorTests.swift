import Foundation
import Strata
import StrataTestSupport
import Testing

/// Malformed format strings report the offset of the bad token with a caret under it; unknown
/// keys fail at fetch naming the entity and key; type mismatches are reported, never silently
/// false.
@Suite("Predicate errors")
struct PredicateErrorTests {
    struct Case: CustomStringConvertible, Sendable {
        var format: String
        var offset: Int
        var message: String
        var arguments: [String] = []
        var description: String { format }
    }

    static let malformedCases: [Case] = [
        Case(format: "age > > 3", offset: 6, message: "Expected a value or key"),
        Case(format: "age >> 3", offset: 5, message: "Expected a value or key"),
        Case(format: "name ==", offset: 7, message: "ends where a value or key was expected"),
        Case(format: "name == 'abc", offset: 8, message: "Unterminated string"),
        Case(format: "(age > 3", offset: 8, message: "')'"),
        Case(format: "age > 3)", offset: 7, message: "Unexpected ')'"),
        Case(format: "name BEGINSWITH[x] 'a'", offset: 16, message: "Unknown comparison option 'x'"),
        Case(format: "name BEGINSWITH[] 'a'", offset: 15, message: "comparison options"),
        Case(format: "age BETWEEN {1}", offset: 12, message: "BETWEEN needs exactly two bounds"),
        Case(format: "age BETWEEN {1, 2, 3}", offset: 12, message: "BETWEEN needs exactly two bounds"),
        Case(format: "ANY", offset: 3, message: "ends where a value or key was expected"),
        Case(format: "age = %@", offset: 6, message: "has no matching argument"),
        Case(format: "age = %d AND x = %d", offset: 17, message: "has no matching argument", arguments: ["1"]),
        Case(format: "name == \"\\q\"", offset: 9, message: "Unknown escape"),
        Case(format: "name == \"\\u12\"", offset: 9, message: "Bad \\u escape"),
        Case(format: "foo(1) == 2", offset: 0, message: "Unknown function 'foo'"),
        Case(format: "FUNCTION(name, 'frobnicate:') == 1", offset: 0, message: "Unknown function 'frobnicate:'"),
        Case(format: "SUBQUERY(items, x, x > 1).@count > 0", offset: 16, message: "needs a variable"),
        Case(format: "age == 1 AND", offset: 12, message: "ends where a value or key was expected"),
        Case(format: "#", offset: 0, message: "'#' must be followed by a key name"),
        Case(format: "age @ 3", offset: 4, message: "'@' must be followed by a collection operator"),
        Case(format: "a == 0x", offset: 5, message: "Bad number literal"),
        Case(format: "a ~ 1", offset: 2, message: "Unexpected character '~'"),
        Case(format: "name == 'a' OR OR b == 1", offset: 15, message: "reserved word 'OR'"),
        Case(format: "age", offset: 3, message: "Expected a comparison operator"),
        Case(format: "age 3", offset: 4, message: "Expected a comparison operator"),
        Case(format: "'😀' == == 1", offset: 7, message: "Expected a value or key"),
        Case(format: "a == 1 AND\n  b >> 2", offset: 16, message: "Expected a value or key"),
        Case(format: "name IN {1, 2", offset: 13, message: "'}'"),
        Case(format: "CAST('x', 'NSDate') == 1", offset: 0, message: "Cannot CAST"),
        Case(format: "TERNARY(a == 1, 2) == 2", offset: 17, message: "','"),
        Case(format: "a == %", offset: 5, message: "'%' at the end"),
        Case(format: "a == %%", offset: 5, message: "'%%' is not valid"),
        Case(format: "a == $", offset: 5, message: "'$' must be followed by a variable name"),
        Case(format: "NOT", offset: 3, message: "ends where a value or key was expected"),
        Case(format: "", offset: 0, message: "ends where a value or key was expected"),
    ]

    @Test("a malformed string throws with the offset and a caret under the bad token", arguments: malformedCases)
    func malformed(_ example: Case) throws {
        let error = try #require(throws: StrataError.self) {
            try ObjectPredicate(validatingFormat: example.format, argumentArray: example.arguments.compactMap { Int($0) })
        }
        #expect(error.offset == example.offset, "\(error)")
        #expect(error.message.contains(example.message), "\(error.message)")
        #expect(error.code == StrataError.Code.coreData)
        // The excerpt shows the bad line with a caret under the offending column.
        let excerpt = try #require(error.sourceExcerpt)
        let lines = excerpt.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 2)
        let scalars = Array(example.format.unicodeScalars)
        var lineStart = example.offset
        while lineStart > 0 && scalars[lineStart - 1] != "\n" { lineStart -= 1 }
        #expect(lines.last == "    " + String(repeating: " ", count: example.offset - lineStart) + "^")
        // init(format:) keeps the error; a fetch or evaluate(throwingWith:) throws it.
        let kept = ObjectPredicate(format: example.format, argumentArray: example.arguments.compactMap { Int($0) })
        #expect(kept.syntaxError?.offset == example.offset)
        #expect(throws: StrataError.self) { try kept.evaluate(throwingWith: ["age": 1]) }
        #expect(kept.evaluate(with: ["age": 1]) == false)
    }

    @Test("nesting deeper than the limit is an error, not a stack overflow")
    func deepNesting() throws {
        let depth = 5_000
        for format in [
            String(repeating: "(", count: depth) + "a == 1" + String(repeating: ")", count: depth),
            String(repeating: "NOT ", count: depth) + "a == 1",
            String(repeating: "-", count: depth) + "1 == a",
            "a" + String(repeating: " + a", count: depth) + " == 1",
            "a == " + String(repeating: "{", count: depth),
            String(repeating: "abs:(", count: depth) + "1" + String(repeating: ")", count: depth) + " == 1",
        ] {
            let error = try #require(throws: StrataError.self) { try ObjectPredicate(validatingFormat: format) }
            #expect(error.message.contains("nested too deeply"))
        }
        // Long flat chains are fine.
        let chain = (0..<2_000).map { "a == \($0)" }.joined(separator: " OR ")
        let predicate = try ObjectPredicate(validatingFormat: chain)
        #expect(predicate.evaluate(with: ["a": 1_999]))
        #expect(try ObjectPredicate(validatingFormat: predicate.predicateFormat) == predicate)
    }

    @Test("unknown keys fail at fetch, naming entity and key", arguments: TestStack.Kind.allCases)
    func unknownKeys(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for (format, entity, key) in [
                ("height > 3", "Venue", "height"),
                ("priceInfo.nope == 1", "PriceInfo", "nope"),
                ("ANY category.venues.colour == 'red'", "Venue", "colour"),
                ("name.first == 'a'", "Venue", "name"),
                ("location.@count > 1", "Venue", "location.@count"),
                ("category.venues.@median.specialCount > 1", "Venue", "category.venues.@median.specialCount"),
            ] {
                let request = FetchRequest<ManagedObject>(entityName: "Venue")
                request.predicate = ObjectPredicate(format: format)
                let error = try #require(throws: StrataError.self, "\(format)") { try context.fetch(request) }
                #expect(error.entityName == entity, "\(format): \(error)")
                #expect(error.key == key, "\(format): \(error)")
                #expect(throws: StrataError.self) { try context.count(for: request) }
            }
            let sorted = FetchRequest<ManagedObject>(entityName: "Venue")
            sorted.sortDescriptors = [ObjectSortDescriptor(key: "location.nowhere")]
            let error = try #require(throws: StrataError.self) { try context.fetch(sorted) }
            #expect(error.entityName == "Location")
            #expect(error.key == "nowhere")
        }
    }

    @Test("type mismatches are reported, not silently false", arguments: TestStack.Kind.allCases)
    func typeMismatches(kind: TestStack.Kind) throws {
        let stack = try VenueFixture.stack(kind)
        let context = stack.newContext()
        try context.performAndWait {
            for (format, key, arguments) in [
                ("name > 3", "name", [Any]()),
                ("specialCount == 'abc'", "specialCount", []),
                ("specialCount == %@", "specialCount", ["7"]),
                ("price == 'x'", "price", []),
                ("rating < %@", "rating", [Date()]),
                ("favorite BEGINSWITH 'a'", "favorite", []),
                ("name CONTAINS 3", "name", []),
                ("location > 3", nil, []),
                ("name IN {1, 2}", "name", []),
            ] as [(String, String?, [Any])] {
                let request = FetchRequest<ManagedObject>(entityName: "Venue")
                request.predicate = ObjectPredicate(format: format, argumentArray: arguments)
                let error = try #require(throws: StrataError.self, "\(format)") { try context.fetch(request) }
                if let key { #expect(error.key == key, "\(format): \(error)") }
                #expect(error.entityName == "Venue", "\(format): \(error)")
            }
        }
        // Evaluating against a dictionary reports ordering mismatches too.
        let predicate = ObjectPredicate(format: "name > 3")
        #expect(throws: StrataError.self) { try predicate.evaluate(throwingWith: ["name": "x"]) }
        #expect(predicate.evaluate(with: ["name": "x"]) == false)
    }
}
