import Foundation
import Testing

@testable import Strata

/// A format string is lexed once and its tokens reused (the arguments are substituted by the
/// parser, after the memo), so a lookup that builds `ObjectPredicate(format: "code == %@", key)`
/// per key does not lex the same text again. Core Data's `NSPredicate(format:)` is a parse of
/// the format with the arguments substituted: the same format with other arguments must give
/// other predicates.
@Suite("Predicate token memo")
struct PredicateTokenMemoTests {
    @Test("one format with different arguments gives predicates with those arguments")
    func sameFormatOtherArguments() {
        let format = "number == %@ AND name BEGINSWITH %@"
        let first = ObjectPredicate(format: format, NSNumber(value: 1), "a")
        let second = ObjectPredicate(format: format, NSNumber(value: 2), "b")
        #expect(first.syntaxError == nil)
        #expect(first.predicateFormat != second.predicateFormat)
        #expect(first == ObjectPredicate(format: format, NSNumber(value: 1), "a"))
        #expect(second == ObjectPredicate(format: format, NSNumber(value: 2), "b"))
    }

    @Test("the memo returns the tokens the lexer gives; errors are thrown every time, not remembered")
    func tokensAndErrors() throws {
        let format = "score > %@ OR flag == YES"
        #expect(try PredicateLexer.tokens(of: format) == PredicateLexer(format).tokenize())
        #expect(try PredicateLexer.tokens(of: format) == PredicateLexer(format).tokenize())
        let malformed = "name == \"unterminated"
        #expect(throws: (any Error).self) { try PredicateLexer.tokens(of: malformed) }
        #expect(throws: (any Error).self) { try PredicateLexer.tokens(of: malformed) }
        #expect(ObjectPredicate(format: malformed).syntaxError != nil)
    }

    @Test("long formats are lexed every time, so the memo stays small")
    func longFormats() throws {
        let long = (0..<200).map { "number == \($0)" }.joined(separator: " OR ")
        #expect(long.utf8.count > PredicateLexer.longestMemoizedFormat)
        #expect(try PredicateLexer.tokens(of: long) == PredicateLexer(long).tokenize())
        #expect(ObjectPredicate(format: long).syntaxError == nil)
    }
}
