import Foundation

/// One argument value of a trace event: text or a whole number.
enum TraceValue: Sendable {
    case text(String)
    case number(Int)
}

/// One event of the Chrome trace-event format (the JSON that Perfetto and chrome://tracing
/// open): a complete span (`X`), the two ends of a flow arrow (`s`, `f`), or a name for a track
/// or the process (`M`). Times are kept in nanoseconds since the recording started and written
/// in the format's microseconds.
struct TraceEvent: Sendable {
    /// The event's kind, the format's `ph` field.
    enum Phase: String, Sendable {
        case complete = "X"
        case flowStart = "s"
        case flowFinish = "f"
        case metadata = "M"
    }

    var name: String
    var category: String?
    var phase: Phase
    var time: UInt64
    var duration: UInt64?
    var pid: Int32
    var track: Int
    var id: UInt64?
    /// A flow finish bound to the span that encloses it (`"bp":"e"`) rather than the next one.
    var bindsToEnclosingSpan = false
    var arguments: [String: TraceValue]?
}

/// Writing events as JSON. `JSONEncoder` took a fifth of the CPU of the traced stress workload
/// (a generic container per field of some ten million fields), so the events, whose shape is
/// fixed, are written directly; strings are escaped as RFC 8259 requires.
extension TraceEvent {
    /// Appends the event as one JSON object.
    func appendJSON(to out: inout [UInt8]) {
        out += #"{"name":"#.utf8
        Self.appendString(name, to: &out)
        if let category {
            out += #","cat":"#.utf8
            Self.appendString(category, to: &out)
        }
        out += #","ph":""#.utf8
        out += phase.rawValue.utf8
        out += #"","ts":"#.utf8
        Self.appendMicroseconds(time, to: &out)
        if let duration {
            out += #","dur":"#.utf8
            Self.appendMicroseconds(duration, to: &out)
        }
        out += #","pid":"#.utf8
        out += String(pid).utf8
        out += #","tid":"#.utf8
        out += String(track).utf8
        if let id {
            out += #","id":"#.utf8
            out += String(id).utf8
        }
        if bindsToEnclosingSpan { out += #","bp":"e""#.utf8 }
        if let arguments, !arguments.isEmpty {
            out += #","args":{"#.utf8
            var first = true
            for (key, value) in arguments.sorted(by: { $0.key < $1.key }) {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                switch value {
                case .text(let text): Self.appendString(text, to: &out)
                case .number(let number): out += String(number).utf8
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += #"\u00"#.utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `nanoseconds` as microseconds with three decimals.
    static func appendMicroseconds(_ nanoseconds: UInt64, to out: inout [UInt8]) {
        out += String(nanoseconds / 1_000).utf8
        let fraction = nanoseconds % 1_000
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
