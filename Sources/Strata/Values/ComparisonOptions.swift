/// `[c]`, `[d]`, `[n]` comparison options.
public struct ComparisonOptions: OptionSet, Hashable, Sendable {
    /// The options as bits.
    public let rawValue: UInt8

    /// Options from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// `[c]`: case-insensitive.
    public static let caseInsensitive = ComparisonOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = ComparisonOptions(rawValue: 2)
    /// `[n]`: normalized (accepted; Strata's comparisons are already exact on code points).
    public static let normalized = ComparisonOptions(rawValue: 4)

    var formatted: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        if contains(.normalized) { letters += "n" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}
