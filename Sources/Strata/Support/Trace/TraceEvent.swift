import Foundation

/// One argument value of a trace event: text or a whole number.
enum TraceValue: Sendable {
    case text(String)
    case number(Int)
}

/// One argument of a trace event: a literal key and its value.
struct TraceArgument: Sendable {
    let key: StaticString
    let value: TraceValue

    init(_ key: StaticString, _ value: TraceValue) {
        self.key = key
        self.value = value
    }

    /// A whole-number argument.
    static func number(_ key: StaticString, _ value: Int) -> TraceArgument { TraceArgument(key, .number(value)) }

    /// A text argument.
    static func text(_ key: StaticString, _ value: String) -> TraceArgument { TraceArgument(key, .text(value)) }
}

/// One event of the Chrome trace-event format (the JSON that Perfetto and chrome://tracing
/// open): a complete span (`X`), the two ends of a flow arrow (`s`, `f`), or a name for a track
/// or the process (`M`). Names and keys are literals, with an optional `detail` (an entity's
/// name) written after the name, so that recording an event allocates no text. Times are kept in
/// nanoseconds since the recording started and written in the format's microseconds.
struct TraceEvent: Sendable {
    /// The event's kind, the format's `ph` field.
    enum Phase: Sendable {
        case complete, flowStart, flowFinish, metadata

        var letter: UInt8 {
            switch self {
            case .complete: UInt8(ascii: "X")
            case .flowStart: UInt8(ascii: "s")
            case .flowFinish: UInt8(ascii: "f")
            case .metadata: UInt8(ascii: "M")
            }
        }
    }

    var name: StaticString
    var detail: String?
    var category: StaticString?
    var phase: Phase
    var time: UInt64
    /// The span's length (complete events only).
    var duration: UInt64 = 0
    var track: Int
    /// The flow's number (flow events only).
    var id: UInt64 = 0
    var arguments: [TraceArgument] = []
    /// Arguments known when the span ended (a row count), written after `arguments`.
    var results: [TraceArgument] = []
}

/// Writing events as JSON. `JSONEncoder` took a fifth of the CPU of the traced stress workload
/// (a generic container per field of some ten million fields), so the events, whose shape is
/// fixed, are written directly; strings are escaped as RFC 8259 requires.
extension TraceEvent {
    /// Appends the event as one JSON object; `pid` is the process's number.
    func appendJSON(to out: inout [UInt8], pid: Int32) {
        Self.appendLiteral(#"{"name":""#, to: &out)
        Self.appendLiteral(name, to: &out)
        if let detail {
            out.append(UInt8(ascii: " "))
            Self.appendEscaped(detail.utf8, to: &out)
        }
        out.append(UInt8(ascii: "\""))
        if let category {
            Self.appendLiteral(#","cat":""#, to: &out)
            Self.appendLiteral(category, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        Self.appendLiteral(#","ph":""#, to: &out)
        out.append(phase.letter)
        Self.appendLiteral(#"","ts":"#, to: &out)
        Self.appendMicroseconds(time, to: &out)
        if phase == .complete {
            Self.appendLiteral(#","dur":"#, to: &out)
            Self.appendMicroseconds(duration, to: &out)
        }
        Self.appendLiteral(#","pid":"#, to: &out)
        Self.appendInteger(Int(pid), to: &out)
        Self.appendLiteral(#","tid":"#, to: &out)
        Self.appendInteger(track, to: &out)
        if phase == .flowStart || phase == .flowFinish {
            Self.appendLiteral(#","id":"#, to: &out)
            Self.appendInteger(Int(truncatingIfNeeded: id), to: &out)
        }
        // A flow's finish binds to the span that encloses it, not to the next one.
        if phase == .flowFinish { Self.appendLiteral(#","bp":"e""#, to: &out) }
        if !arguments.isEmpty || !results.isEmpty {
            Self.appendLiteral(#","args":{"#, to: &out)
            var first = true
            for argument in arguments { Self.append(argument, first: &first, to: &out) }
            for argument in results { Self.append(argument, first: &first, to: &out) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// One `"key":value` member of the `args` object.
    private static func append(_ argument: TraceArgument, first: inout Bool, to out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(UInt8(ascii: "\""))
        appendLiteral(argument.key, to: &out)
        appendLiteral(#"":"#, to: &out)
        switch argument.value {
        case .text(let text):
            out.append(UInt8(ascii: "\""))
            appendEscaped(text.utf8, to: &out)
            out.append(UInt8(ascii: "\""))
        case .number(let number):
            appendInteger(number, to: &out)
        }
    }

    /// A literal written as it is: the names, keys and categories of events are literals in this
    /// module with nothing to escape.
    @inline(__always)
    static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// UTF-8 text inside a JSON string: quotes, backslashes and control characters escaped.
    /// Text with nothing to escape (nearly all of it: SQL, names) is copied in one piece.
    static func appendEscaped(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        let copied = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            guard !buffer.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: buffer)
            return true
        }
        if copied == true { return }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): Self.appendLiteral(#"\""#, to: &out)
            case UInt8(ascii: "\\"): Self.appendLiteral(#"\\"#, to: &out)
            case UInt8(ascii: "\n"): Self.appendLiteral(#"\n"#, to: &out)
            case UInt8(ascii: "\t"): Self.appendLiteral(#"\t"#, to: &out)
            case 0..<0x20:
                Self.appendLiteral(#"\u00"#, to: &out)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default: out.append(byte)
            }
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }

    /// A whole number in decimal.
    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    /// `nanoseconds` as microseconds with three decimals.
    static func appendMicroseconds(_ nanoseconds: UInt64, to out: inout [UInt8]) {
        appendInteger(Int(nanoseconds / 1_000), to: &out)
        let fraction = nanoseconds % 1_000
        out.append(UInt8(ascii: "."))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
