import Foundation

/// String comparisons of the predicate language, shared by the in-memory evaluator and by the
/// SQLite functions and collations Strata registers, so both engines agree by construction.
///
/// Without options, comparisons are exact on UTF-8 bytes (as SQLite's `BINARY` collation and
/// `NSString`'s literal comparison). `[c]` folds case and `[d]` removes diacritics using
/// Unicode's rules (`"Émile"` matches `BEGINSWITH[cd] "emi"`).
enum StringMatching {
    /// Applies `[c]` / `[d]` folding. Results are cached (folding is slow and the same values
    /// are folded again by every comparison of a fetch).
    static func fold(_ text: String, _ options: ComparisonOptions) -> String {
        let relevant = options.rawValue & (ComparisonOptions.caseInsensitive.rawValue | ComparisonOptions.diacriticInsensitive.rawValue)
        if relevant == 0 { return text }
        return foldMemo.value(for: BinaryStringKey(text, tag: relevant)) { computeFold(text, ComparisonOptions(rawValue: relevant)) }
    }

    private static let foldMemo = BoundedMemo<BinaryStringKey, String>(capacity: 16_384)

    private static func computeFold(_ text: String, _ options: ComparisonOptions) -> String {
        var foldOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldOptions.insert(.diacriticInsensitive) }
        if foldOptions.isEmpty { return text }
        var folded = text.folding(options: foldOptions, locale: nil)
        if options.contains(.caseInsensitive) {
            // folding(.caseInsensitive) lower-cases; apply full case folding for ß, ﬁ, … too.
            folded = folded.lowercased()
        }
        // Compose, so "e\u{301}" and "é" fold the same.
        return folded.precomposedStringWithCanonicalMapping
    }

    /// Byte-wise three-way comparison of UTF-8 text (SQLite's BINARY collation).
    static func compareBinary(_ a: String, _ b: String) -> Int {
        var left = a
        var right = b
        return left.withUTF8 { l in
            right.withUTF8 { r in
                let common = min(l.count, r.count)
                if common > 0, let lb = l.baseAddress, let rb = r.baseAddress {
                    let result = memcmp(lb, rb, common)
                    if result != 0 { return result < 0 ? -1 : 1 }
                }
                return l.count == r.count ? 0 : (l.count < r.count ? -1 : 1)
            }
        }
    }

    /// Three-way comparison under `options` (folded, then byte-wise).
    static func compare(_ a: String, _ b: String, _ options: ComparisonOptions) -> Int {
        compareBinary(fold(a, options), fold(b, options))
    }

    static func beginsWith(_ text: String, _ prefix: String, _ options: ComparisonOptions) -> Bool {
        var t = fold(text, options)
        var p = fold(prefix, options)
        return t.withUTF8 { t in
            p.withUTF8 { p in
                bytes(t, at: 0, equal: p)
            }
        }
    }

    static func endsWith(_ text: String, _ suffix: String, _ options: ComparisonOptions) -> Bool {
        var t = fold(text, options)
        var s = fold(suffix, options)
        return t.withUTF8 { t in
            s.withUTF8 { s in
                bytes(t, at: t.count - s.count, equal: s)
            }
        }
    }

    static func contains(_ text: String, _ part: String, _ options: ComparisonOptions) -> Bool {
        var t = fold(text, options)
        var p = fold(part, options)
        return t.withUTF8 { t in
            p.withUTF8 { p in
                guard !p.isEmpty else { return true }
                guard p.count <= t.count, let whole = t.baseAddress, let needle = p.baseAddress else { return false }
                let first = needle.pointee
                var index = 0
                while index <= t.count - p.count {
                    if whole[index] == first && memcmp(whole + index, needle, p.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }

    /// Whether the bytes of `whole` at `offset` are `part`.
    private static func bytes(_ whole: UnsafeBufferPointer<UInt8>, at offset: Int, equal part: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !part.isEmpty else { return true }
        guard offset >= 0, offset + part.count <= whole.count, let start = whole.baseAddress, let bytes = part.baseAddress else { return false }
        return memcmp(start + offset, bytes, part.count) == 0
    }

    /// `LIKE`: `*` matches any run of characters, `?` exactly one; `\` escapes either.
    static func like(_ text: String, _ pattern: String, _ options: ComparisonOptions) -> Bool {
        let t = Array(fold(text, options))
        let p = Array(fold(pattern, options))
        // Iterative wildcard matching with backtracking to the last '*'.
        var ti = 0
        var pi = 0
        var starPattern = -1
        var starText = 0
        while ti < t.count {
            if pi < p.count {
                var literal: Character? = p[pi]
                var step = 1
                if p[pi] == "\\", pi + 1 < p.count {
                    literal = p[pi + 1]
                    step = 2
                } else if p[pi] == "*" {
                    starPattern = pi
                    starText = ti
                    pi += 1
                    continue
                } else if p[pi] == "?" {
                    literal = nil
                }
                if literal == nil || literal == t[ti] {
                    ti += 1
                    pi += step
                    continue
                }
            }
            if starPattern >= 0 {
                pi = starPattern + 1
                starText += 1
                ti = starText
                continue
            }
            return false
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// `MATCHES`: the whole string matches the ICU regular expression, compiled as on Apple's
    /// platforms: `^` and `$` also match at line breaks and `.` also matches a line break (see
    /// ``regex(for:caseInsensitive:)``). Both engines run this function (the SQLite store
    /// registers it as `strata_match`), so a fetch and `evaluate(with:)` agree.
    static func matches(_ text: String, _ pattern: String, _ options: ComparisonOptions) throws -> Bool {
        let caseInsensitive = options.contains(.caseInsensitive)
        let regex = try Self.regex(for: pattern, caseInsensitive: caseInsensitive)
        let subject = options.contains(.diacriticInsensitive) ? fold(text, [.diacriticInsensitive]) : text
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        // A full match, not the first match that happens to be whole: the pattern wrapped as
        // `(?:pattern)\z` and anchored at the start matches exactly when some way through the
        // pattern covers the string ("a|ab" matches "ab", and "ab$|ab\ncd" matches "ab\ncd"
        // although `$` already matches at the line break). A pattern the wrapping does not
        // compile for (an unterminated `#` comment or `\Q` quote) takes its first match.
        if let whole = try? Self.regex(for: "(?:" + pattern + ")\\z", caseInsensitive: caseInsensitive) {
            return whole.firstMatch(in: subject, options: [.anchored], range: range) != nil
        }
        guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
        return match.range.location == 0 && match.range.length == range.length
    }

    /// The options every `MATCHES` pattern is compiled with: `^` and `$` match at the start
    /// and end of each line as well as of the string, and `.` matches line separators too, as
    /// `NSPredicate`'s `MATCHES` does on Apple's platforms. The match must still cover the whole
    /// string. A pattern can turn either off with `(?-m)` / `(?-s)`.
    static let regexOptions: NSRegularExpression.Options = [.anchorsMatchLines, .dotMatchesLineSeparators]

    /// `pattern` compiled as an ICU regular expression with ``regexOptions`` (memoized: a fetch
    /// matches every row against the same pattern); throws a ``StrataError`` when it is not a
    /// valid one.
    static func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        try regexMemo.value(for: BinaryStringKey(pattern, tag: caseInsensitive ? 1 : 0)) { () throws(StrataError) -> NSRegularExpression in
            do {
                return try NSRegularExpression(pattern: pattern, options: regexOptions.union(caseInsensitive ? [.caseInsensitive] : []))
            } catch {
                throw StrataError(code: StrataError.Code.coreData, message: "MATCHES pattern '\(pattern)' is not a valid regular expression")
            }
        }
    }

    private static let regexMemo = BoundedMemo<BinaryStringKey, NSRegularExpression>(capacity: 256)

    // MARK: Sorting comparators

    /// Case-insensitive ordering: folded comparison, ties broken byte-wise so the order is total.
    static func compareCaseInsensitive(_ a: String, _ b: String) -> Int {
        let folded = compare(a, b, [.caseInsensitive])
        return folded != 0 ? folded : compareBinary(a, b)
    }

    /// "Localized standard" (Finder-like, natural) ordering: case- and diacritic-insensitive,
    /// digit runs compared by numeric value ("file2" < "file10"), ties broken byte-wise.
    static func compareLocalizedStandard(_ a: String, _ b: String) -> Int {
        compareNatural(naturalKey(a), naturalKey(b), a, b)
    }

    /// The folded text of `text` split into digit runs and other text.
    static func naturalKey(_ text: String) -> [NaturalChunk] {
        naturalChunks(fold(text, [.caseInsensitive, .diacriticInsensitive]))
    }

    /// Compares natural keys; `a` and `b` (the original texts) break ties.
    static func compareNatural(_ left: [NaturalChunk], _ right: [NaturalChunk], _ a: String, _ b: String) -> Int {
        for (l, r) in zip(left, right) {
            switch (l, r) {
            case (.number(let ln, let ld), .number(let rn, let rd)):
                if ln.utf8.count != rn.utf8.count { return ln.utf8.count < rn.utf8.count ? -1 : 1 }
                let c = compareBinary(ln, rn)
                if c != 0 { return c }
                if ld != rd { return ld < rd ? -1 : 1 }  // fewer leading zeros first
            case (.number, .text): return -1
            case (.text, .number): return 1
            case (.text(let lt), .text(let rt)):
                let c = compareBinary(lt, rt)
                if c != 0 { return c }
            }
        }
        if left.count != right.count { return left.count < right.count ? -1 : 1 }
        return compareBinary(a, b)
    }

    /// A run of a natural key.
    enum NaturalChunk {
        /// Digits without leading zeros, and how many leading zeros there were.
        case number(String, Int)
        case text(String)
    }

    private static func naturalChunks(_ text: String) -> [NaturalChunk] {
        var chunks: [NaturalChunk] = []
        var current = ""
        var inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if inDigits {
                let trimmed = current.drop { $0 == "0" }
                chunks.append(.number(trimmed.isEmpty ? "0" : String(trimmed), current.count - max(trimmed.count, 1)))
            } else {
                chunks.append(.text(current))
            }
            current = ""
        }
        for scalar in text.unicodeScalars {
            let isDigit = scalar.isASCIIDigit
            if isDigit != inDigits {
                flush()
                inDigits = isDigit
            }
            current.unicodeScalars.append(scalar)
        }
        flush()
        return chunks
    }
}

/// A memo key for text: the text compared by its UTF-8 bytes, not by Swift's canonical
/// equivalence (so "é" and "e\u{301}", which folding, parsing and regular expressions may treat
/// differently, stay distinct), and a tag telling apart variants of one function (folding
/// options, case-insensitive patterns). A value type: use it from any thread.
struct BinaryStringKey: Hashable, Sendable {
    var text: String
    var tag: UInt8

    init(_ text: String, tag: UInt8 = 0) {
        self.text = text
        self.tag = tag
    }

    static func == (lhs: BinaryStringKey, rhs: BinaryStringKey) -> Bool {
        lhs.tag == rhs.tag && StringMatching.compareBinary(lhs.text, rhs.text) == 0
    }

    // Consistent with ==: equal bytes are canonically equivalent, which String hashes alike.
    func hash(into hasher: inout Hasher) {
        hasher.combine(tag)
        hasher.combine(text)
    }
}
