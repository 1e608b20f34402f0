/// Text made safe for XML content and attribute values (the HTML report is well-formed XML).
enum XMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` escaped and characters XML 1.0 forbids dropped.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                guard isAllowed(scalar) else { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether XML 1.0 allows `scalar` in a document (tab, newlines and everything from space up,
    /// less the two non-characters U+FFFE and U+FFFF).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    /// A number for an SVG coordinate: at most one decimal, never exponent notation.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.1f", rounded)
    }
}
