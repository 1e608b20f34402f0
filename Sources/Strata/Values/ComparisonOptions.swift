/// `[c]`, `[d]`, `[n]` comparison options.
struct ComparisonOptions: OptionSet, Hashable, Sendable {
    let rawValue: UInt8
    /// `[c]`: case-insensitive.
    static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: normalized (accepted; Strata's comparisons are already exact on code points).
    static let normalized = ComparisonOptions(rawValue: 4)

    var formatted: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}
