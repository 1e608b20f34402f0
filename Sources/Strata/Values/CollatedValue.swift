import Foundation

/// A stored value prepared once for many comparisons under one collation, as sorting needs:
/// the costly part of a collation (folding, parsing a decimal, splitting digit runs) happens once
/// per value instead of once per comparison. Comparing two prepared values gives exactly what
/// `ValueOrdering.compare(_:_:collation:)` gives for the original values.
struct CollatedValue {
    private enum Form {
        /// A non-text value, or text under the binary collation.
        case plain(StoredValue)
        case decimal(ValueOrdering.DecimalKey, String)
        /// Folded text and the original (the original breaks ties when `tieBreak`).
        case folded(String, String, tieBreak: Bool)
        case natural([StringMatching.NaturalChunk], String)
    }

    private let form: Form

    /// Prepares `value` for comparisons under `collation`. O(length of the text).
    init(_ value: StoredValue, collation: ValueCollation) {
        guard case .text(let text) = value else {
            form = .plain(value)
            return
        }
        switch collation {
        case .binary: form = .plain(value)
        case .decimal: form = .decimal(ValueOrdering.decimalKey(text), text)
        case .folded(let options): form = .folded(StringMatching.fold(text, options), text, tieBreak: false)
        case .caseInsensitive: form = .folded(StringMatching.fold(text, [.caseInsensitive]), text, tieBreak: true)
        case .localizedStandard: form = .natural(StringMatching.naturalKey(text), text)
        }
    }

    /// Three-way comparison: -1, 0 or 1. Both values must have been prepared with the same collation.
    static func compare(_ a: CollatedValue, _ b: CollatedValue) -> Int {
        switch (a.form, b.form) {
        case (.plain(let x), .plain(let y)):
            return ValueOrdering.compare(x, y, collation: .binary)
        case (.plain(let x), _):
            // Text (the other side) ranks above NULL and numbers, below blobs.
            if case .blob = x { return 1 }
            return -1
        case (_, .plain(let y)):
            if case .blob = y { return -1 }
            return 1
        case (.decimal(let x, let s), .decimal(let y, let t)):
            return ValueOrdering.compare(x, y, s, t)
        case (.folded(let x, let s, let tieBreak), .folded(let y, let t, _)):
            let order = StringMatching.compareBinary(x, y)
            return order != 0 || !tieBreak ? order : StringMatching.compareBinary(s, t)
        case (.natural(let x, let s), .natural(let y, let t)):
            return StringMatching.compareNatural(x, y, s, t)
        default:
            return 0
        }
    }
}
