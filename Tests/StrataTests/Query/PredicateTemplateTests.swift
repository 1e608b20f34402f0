import Foundation
import Testing

@testable import Strata

/// `ObjectPredicate(format:)` of a format string met before substitutes its new arguments into
/// a parsed template (`PredicateTemplates`) instead of parsing again. Core Data's
/// `NSPredicate(format:argumentArray:)` is a parse of the format with the arguments put in
/// place: whichever path builds it, the predicate must be the one a fresh parse gives.
@Suite("Predicate templates")
struct PredicateTemplateTests {
    /// The tree a fresh parse gives (no template).
    static func fresh(_ format: String, _ arguments: [Any?]) throws -> PredicateNode {
        var parser = try PredicateParser(format: format, arguments: arguments)
        return try parser.parsePredicate()
    }

    /// Expects every argument list to give, through the templates, the fresh parse's tree and
    /// printed form (each format is used several times: the first makes the template).
    static func expectFresh(_ format: String, _ argumentLists: [[Any?]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for optionals in argumentLists + argumentLists {
            // As `ObjectPredicate(format:_:)` passes them: a nil argument is an optional in an `Any`.
            let arguments = optionals.map { $0 as Any }
            let expected = try fresh(format, arguments)
            let got = try PredicateTemplates.parse(format: format, arguments: arguments)
            #expect(got == expected, "\(format) \(arguments)", sourceLocation: sourceLocation)
            #expect(ObjectPredicate(node: got).predicateFormat == ObjectPredicate(node: expected).predicateFormat, sourceLocation: sourceLocation)
        }
    }

    @Test("new values of every templated class give the fresh parse")
    func values() throws {
        // Core Data: `%@` is the argument's value, `%d` an integer, `%f` a real, `%s` a string.
        try Self.expectFresh("number == %@", [[NSNumber(value: 5)], [NSNumber(value: 7)], [NSNumber(value: 1)], [NSNumber(value: 2.5)], [5], ["5"], [2.5]])
        try Self.expectFresh("name BEGINSWITH[cd] %@ AND score > %@", [["a", 1], ["é", 2], ["", -3], ["x", 1.5]])
        try Self.expectFresh("n == %d OR x < %f OR s == %s", [[1, 2.0, "a"], [3, 4.5, "b"], [Int64.max, -0.0, ""]])
        try Self.expectFresh("n BETWEEN {%@, %@}", [[1, 2], [3, 4], ["a", "b"], [1, 2.5]])
        try Self.expectFresh("n IN {%@, 3, %@}", [[1, 2], [5, 6]])
        try Self.expectFresh("-%@ < n", [[1], [2], [2.5]])
        try Self.expectFresh("ANY items.code == %@ AND SUBQUERY(items, $i, $i.n > %@).@count > %d", [["a", 1, 0], ["b", 2, 3]])
        try Self.expectFresh("name == '%@' AND code == %@", [["x"], ["y"]])
    }

    @Test("key paths, nil, collections, objects and expressions are substituted as a parse would")
    func otherArguments() throws {
        // `%K` is a key path (dots split it); nil is NULL; a collection is a list; an object is
        // its ID. These are parsed every time or keyed verbatim, never mixed up.
        try Self.expectFresh("%K == %@", [["name", "a"], ["department.name", "b"], ["name", "c"], ["code", 1]])
        try Self.expectFresh("a.%K == %@", [["name", "a"], ["b.c", "d"]])
        try Self.expectFresh("name == %@", [[nil], ["a"], [NSNull()], ["b"], [true], [["a", "b"]], [Date(timeIntervalSinceReferenceDate: 5)]])
        try Self.expectFresh("name IN %@", [[["a"]], [["a", "b"]], [Set(["c"])]])
        try Self.expectFresh("name == %@", [[ObjectExpression(forConstantValue: 5)], [ObjectExpression(forKeyPath: "other")], ["z"]])
    }

    @Test("arguments transformed while parsing are never templated wrongly")
    func transformedArguments() throws {
        // CAST converts a constant while the string is parsed (Core Data's CAST); a literal of the
        // format can equal a marker. Either way the tree must be the fresh parse's.
        try Self.expectFresh("name == CAST(%@, 'NSString')", [[5], [6], ["7"]])
        try Self.expectFresh("n == CAST(%@, 'NSNumber')", [["12"], ["13"], ["1.5"]])
        try Self.expectFresh("d == CAST(%@, 'NSDate')", [[1.0], [2.0], [3]])
        try Self.expectFresh("n == -4611686018427387904 OR n == %@", [[Int64.min / 2], [7], [Int64.min / 2]])
        try Self.expectFresh("s == '\u{1}strata.argument.0' OR s == %@", [["\u{1}strata.argument.0"], ["x"]])
        // Text that reads as a marker's index but is not its exact text stays a literal.
        try Self.expectFresh("s == '\u{1}strata.argument.00' OR s == '\u{1}strata.argument.+1' OR s == %@ OR t == %@", [["a", "b"], ["c", "d"]])
        // More values than a substitution tracks (64): parsed every time.
        let many = "n IN {" + Array(repeating: "%@", count: 70).joined(separator: ", ") + "}"
        try Self.expectFresh(many, [(0..<70).map { $0 }, (0..<70).map { $0 * 2 }])
    }

    @Test("malformed formats and wrong arguments throw the parser's errors every time")
    func errors() throws {
        // Core Data raises for a malformed format or an argument of the wrong type; a template
        // must not turn either into a predicate.
        for _ in 0..<2 {
            for (format, arguments) in [("n == %d", ["x"]), ("n == %@ AND", [1]), ("n == %@", []), ("n == %%", [1]), ("n == %@ OR m == %@", [1])] as [(String, [Any?])] {
                var freshError: PredicateSyntaxError?
                do { _ = try Self.fresh(format, arguments) } catch let error as PredicateSyntaxError { freshError = error }
                var templateError: PredicateSyntaxError?
                do { _ = try PredicateTemplates.parse(format: format, arguments: arguments.map { $0 as Any }) } catch let error as PredicateSyntaxError { templateError = error }
                #expect(freshError != nil, "\(format)")
                #expect(templateError?.message == freshError?.message, "\(format)")
                #expect(templateError?.offset == freshError?.offset, "\(format)")
            }
        }
    }

    @Test("the templates are bounded")
    func bounded() throws {
        // An app may build predicates from any number of distinct strings; the memo of their
        // templates stays within its capacity.
        for index in 0..<300 {
            try Self.expectFresh("n\(index) == %@", [[index]])
        }
        #expect(PredicateTemplates.count <= PredicateTemplates.capacity)
    }
}
