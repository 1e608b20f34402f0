import Foundation

/// A token of the predicate format language, with its character offset in the input.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        /// A reserved word, upper-cased (`AND`, `BEGINSWITH`, `NIL`, …).
        case keyword(String)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// `$NAME`.
        case variable(String)
        /// `%@`, `%K`, `%d`, … (the letters after `%`).
        case formatSpecifier(String)
        /// `@count`, `@sum`, … (without the `@`).
        case collectionOperator(String)
        /// Operators and punctuation: `==`, `(`, `,`, `[`, …
        case symbol(String)
        case end
    }

    var kind: Kind
    var offset: Int
}

/// Splits a predicate format string into tokens. Errors carry the offset of the bad character.
struct PredicateLexer {
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "IN", "LIKE", "MATCHES", "BEGINSWITH", "ENDSWITH", "CONTAINS", "BETWEEN",
        "ANY", "SOME", "ALL", "NONE", "NULL", "NIL", "TRUE", "FALSE", "YES", "NO", "SELF",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "FIRST", "LAST", "SIZE",
    ]
    /// Operators of two characters (matched before those of one).
    static let twoCharacterSymbols: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "**"]
    /// Operators and punctuation of one character.
    static let oneCharacterSymbols: Set<Unicode.Scalar> = ["=", "<", ">", "!", "(", ")", "{", "}", "[", "]", ",", ".", "+", "-", "*", "/", ":"]

    let characters: [Unicode.Scalar]
    let source: String

    init(_ source: String) {
        self.source = source
        self.characters = Array(source.unicodeScalars)
    }

    /// The token lists of recently parsed format strings (tokens do not depend on the
    /// arguments: `%@` stays a format specifier), so a predicate built again and again from one
    /// format, as a lookup per key does, is lexed once.
    private static let memo = BoundedMemo<String, [PredicateToken]>(capacity: 256)
    /// Formats longer than this (in UTF-8 bytes) are lexed every time, so the memo stays small.
    static let longestMemoizedFormat = 1_024

    /// The tokens of `format`, from the memo when it was lexed recently. Throws the lexer's
    /// error for a malformed string (errors are not memoized). Callable from any thread.
    static func tokens(of format: String) throws -> [PredicateToken] {
        guard format.utf8.count <= longestMemoizedFormat else { return try PredicateLexer(format).tokenize() }
        return try memo.value(for: format) { try PredicateLexer(format).tokenize() }
    }

    func tokenize() throws -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        var index = 0
        let count = characters.count
        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < count ? characters[index + offset] : nil
        }
        while index < count {
            let character = characters[index]
            let start = index
            if character.properties.isWhitespace {
                index += 1
                continue
            }
            // Identifiers and keywords; `#` escapes a reserved word used as a key.
            if character == "#" || character.isIdentifierStart {
                var escaped = false
                if character == "#" {
                    escaped = true
                    index += 1
                    guard let next = peek(), next.isIdentifierStart else {
                        throw PredicateSyntaxError(message: "'#' must be followed by a key name", offset: start)
                    }
                }
                var name = ""
                while let c = peek(), c.isIdentifierPart {
                    name.unicodeScalars.append(c)
                    index += 1
                }
                let upper = name.uppercased()
                if !escaped && Self.keywords.contains(upper) {
                    tokens.append(PredicateToken(kind: .keyword(upper), offset: start))
                } else {
                    tokens.append(PredicateToken(kind: .identifier(name), offset: start))
                }
                continue
            }
            if character.isASCIIDigit {
                tokens.append(try number(at: &index))
                continue
            }
            switch character {
            case "\"", "'":
                tokens.append(PredicateToken(kind: .string(try string(at: &index, quote: character)), offset: start))
                continue
            case "$":
                index += 1
                var name = ""
                while let c = peek(), c.isIdentifierPart {
                    name.unicodeScalars.append(c)
                    index += 1
                }
                guard !name.isEmpty else { throw PredicateSyntaxError(message: "'$' must be followed by a variable name", offset: start) }
                tokens.append(PredicateToken(kind: .variable(name), offset: start))
                continue
            case "@":
                index += 1
                var name = ""
                while let c = peek(), c.properties.isAlphabetic {
                    name.unicodeScalars.append(c)
                    index += 1
                }
                guard !name.isEmpty else { throw PredicateSyntaxError(message: "'@' must be followed by a collection operator such as @count", offset: start) }
                tokens.append(PredicateToken(kind: .collectionOperator(name.lowercased()), offset: start))
                continue
            case "%":
                index += 1
                var spec = ""
                while let c = peek(), c == "l" || c == "h" || c == "q" {
                    spec.unicodeScalars.append(c)
                    index += 1
                }
                guard let c = peek() else { throw PredicateSyntaxError(message: "'%' at the end of the format string", offset: start) }
                spec.unicodeScalars.append(c)
                index += 1
                tokens.append(PredicateToken(kind: .formatSpecifier(spec), offset: start))
                continue
            default:
                break
            }
            // Operators: longest match first. (Two scalars appended to a small string: no
            // array or heap string per operator character.)
            var two = ""
            if let next = peek(1) {
                two.unicodeScalars.append(character)
                two.unicodeScalars.append(next)
            }
            if Self.twoCharacterSymbols.contains(two) {
                tokens.append(PredicateToken(kind: .symbol(two), offset: start))
                index += 2
                continue
            }
            if Self.oneCharacterSymbols.contains(character) {
                tokens.append(PredicateToken(kind: .symbol(String(character)), offset: start))
                index += 1
                continue
            }
            throw PredicateSyntaxError(message: "Unexpected character '\(character)'", offset: start)
        }
        tokens.append(PredicateToken(kind: .end, offset: count))
        return tokens
    }

    private func number(at index: inout Int) throws -> PredicateToken {
        let start = index
        var text = ""
        let count = characters.count
        if characters[index] == "0", index + 1 < count, "xXbBoO".unicodeScalars.contains(characters[index + 1]) {
            let radixCharacter = characters[index + 1]
            let radix = radixCharacter == "x" || radixCharacter == "X" ? 16 : (radixCharacter == "b" || radixCharacter == "B" ? 2 : 8)
            index += 2
            while index < count, characters[index].isHexDigit {
                text.unicodeScalars.append(characters[index])
                index += 1
            }
            guard let value = Int64(text, radix: radix) else {
                throw PredicateSyntaxError(message: "Bad number literal", offset: start)
            }
            return PredicateToken(kind: .integer(value), offset: start)
        }
        var isDouble = false
        while index < count {
            let c = characters[index]
            if c.isASCIIDigit {
                text.unicodeScalars.append(c)
            } else if c == "." && !isDouble && index + 1 < count && characters[index + 1].isASCIIDigit {
                isDouble = true
                text.unicodeScalars.append(c)
            } else if (c == "e" || c == "E") && index + 1 < count
                && (characters[index + 1].isASCIIDigit || ((characters[index + 1] == "-" || characters[index + 1] == "+") && index + 2 < count && characters[index + 2].isASCIIDigit))
            {
                isDouble = true
                text.unicodeScalars.append(c)
                index += 1
                text.unicodeScalars.append(characters[index])
            } else {
                break
            }
            index += 1
        }
        if !isDouble, let value = Int64(text) {
            return PredicateToken(kind: .integer(value), offset: start)
        }
        guard let value = Double(text) else {
            throw PredicateSyntaxError(message: "Bad number literal '\(text)'", offset: start)
        }
        return PredicateToken(kind: .double(value), offset: start)
    }

    private func string(at index: inout Int, quote: Unicode.Scalar) throws -> String {
        let start = index
        index += 1
        var result = ""
        let count = characters.count
        while index < count {
            let c = characters[index]
            if c == quote {
                index += 1
                return result
            }
            if c == "\\" {
                index += 1
                guard index < count else { break }
                let escape = characters[index]
                switch escape {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "0": result.append("\0")
                case "\\", "\"", "'": result.unicodeScalars.append(escape)
                case "u":
                    var hex = ""
                    var cursor = index + 1
                    while cursor < count, hex.count < 4, characters[cursor].isHexDigit {
                        hex.unicodeScalars.append(characters[cursor])
                        cursor += 1
                    }
                    guard hex.count == 4, let scalarValue = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(scalarValue) else {
                        throw PredicateSyntaxError(message: "Bad \\u escape (needs four hex digits)", offset: index - 1)
                    }
                    result.unicodeScalars.append(scalar)
                    index = cursor - 1
                default:
                    throw PredicateSyntaxError(message: "Unknown escape '\\\(escape)' in string", offset: index - 1)
                }
                index += 1
                continue
            }
            result.unicodeScalars.append(c)
            index += 1
        }
        throw PredicateSyntaxError(message: "Unterminated string", offset: start)
    }
}

/// A syntax error with the character offset of the bad token.
struct PredicateSyntaxError: Error {
    var message: String
    var offset: Int
}

extension Unicode.Scalar {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isHexDigit: Bool { isASCIIDigit || ("a"..."f").contains(self) || ("A"..."F").contains(self) }
    var isIdentifierStart: Bool { self == "_" || properties.isAlphabetic }
    var isIdentifierPart: Bool {
        self == "_" || properties.isAlphabetic || properties.numericType != nil || properties.generalCategory == .nonspacingMark
            || properties.generalCategory == .spacingMark
    }
}
