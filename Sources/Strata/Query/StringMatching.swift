import Foundation

/// String comparisons of the predicate language, shared by the in-memory evaluator and by the
/// SQLite functions and collations Strata registers, so both engines agree by construction.
///
/// Without options, comparisons are exact on UTF-8 bytes (as SQLite's `BINARY` collation and
/// `NSString`'s literal comparison). `[c]` folds case and `[d]` removes diacritics using
/// Unicode's rules (`"Émile"` matches `BEGINSWITH[cd] "emi"`).
enum StringMatching {
    /// Applies `[c]` / `[d]` folding.
    static func fold(_ text: String, _ options: ComparisonOptions) -> String {
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
        if options.isEmpty || options == .normalized { return compareBinary(a, b) }
        return compareBinary(fold(a, options), fold(b, options))
    }

    static func beginsWith(_ text: String, _ prefix: String, _ options: ComparisonOptions) -> Bool {
        let t = fold(text, options)
        let p = fold(prefix, options)
        return t.utf8.starts(with: p.utf8)
    }

    static func endsWith(_ text: String, _ suffix: String, _ options: ComparisonOptions) -> Bool {
        let t = Array(fold(text, options).utf8)
        let s = Array(fold(suffix, options).utf8)
        return s.count <= t.count && t[(t.count - s.count)...].elementsEqual(s)
    }

    static func contains(_ text: String, _ part: String, _ options: ComparisonOptions) -> Bool {
        let t = Array(fold(text, options).utf8)
        let p = Array(fold(part, options).utf8)
        if p.isEmpty { return true }
        if p.count > t.count { return false }
        var index = 0
        let last = t.count - p.count
        while index <= last {
            if t[index] == p[0] && t[index..<(index + p.count)].elementsEqual(p) { return true }
            index += 1
        }
        return false
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

    /// `MATCHES`: the whole string matches the ICU regular expression.
    static func matches(_ text: String, _ pattern: String, _ options: ComparisonOptions) throws -> Bool {
        let regex = try RegexCache.shared.regex(for: pattern, caseInsensitive: options.contains(.caseInsensitive))
        let subject = options.contains(.diacriticInsensitive) ? fold(text, [.diacriticInsensitive]) : text
        let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
        guard let match = regex.firstMatch(in: subject, options: [.anchored], range: range) else { return false }
        return match.range.location == 0 && match.range.length == range.length
    }

    // MARK: Sorting comparators

    /// Case-insensitive ordering: folded comparison, ties broken byte-wise so the order is total.
    static func compareCaseInsensitive(_ a: String, _ b: String) -> Int {
        let folded = compare(a, b, [.caseInsensitive])
        return folded != 0 ? folded : compareBinary(a, b)
    }

    /// "Localized standard" (Finder-like, natural) ordering: case- and diacritic-insensitive,
    /// digit runs compared by numeric value ("file2" < "file10"), ties broken byte-wise.
    static func compareLocalizedStandard(_ a: String, _ b: String) -> Int {
        let left = naturalChunks(fold(a, [.caseInsensitive, .diacriticInsensitive]))
        let right = naturalChunks(fold(b, [.caseInsensitive, .diacriticInsensitive]))
        for (l, r) in zip(left, right) {
            switch (l, r) {
            case (.number(let ln, let ld), .number(let rn, let rd)):
                if ln.count != rn.count { return ln.count < rn.count ? -1 : 1 }
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

    private enum Chunk {
        /// Digits without leading zeros, and how many leading zeros there were.
        case number(String, Int)
        case text(String)
    }

    private static func naturalChunks(_ text: String) -> [Chunk] {
        var chunks: [Chunk] = []
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

/// Compiled regular expressions, shared across threads.
final class RegexCache: @unchecked Sendable {
    // @unchecked Sendable: the dictionary is guarded by `lock`; NSRegularExpression is immutable.
    static let shared = RegexCache()
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]

    func regex(for pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        if let cached = cache[key] {
            lock.unlock()
            return cached
        }
        lock.unlock()
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw StrataError(code: StrataError.Code.coreData, message: "MATCHES pattern '\(pattern)' is not a valid regular expression")
        }
        lock.lock()
        if cache.count > 256 { cache.removeAll() }
        cache[key] = regex
        lock.unlock()
        return regex
    }
}
