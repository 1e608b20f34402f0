import Foundation

/// The bytes of the trace file's next part, written by the recording's writer thread. The events,
/// whose shape is fixed, are written directly into one growing block of memory (`JSONEncoder`
/// took a fifth of the CPU of the traced stress workload, and byte-by-byte appends to an array,
/// each checking the array's capacity and uniqueness, most of the writer's time); strings are
/// escaped as RFC 8259 requires. Used by one thread at a time.
final class TraceJSONBuffer {
    // Only the writer thread touches a buffer: release builds skip the runtime's exclusivity
    // checks on its fields (they were a tenth of the writer's time).
    @exclusivity(unchecked) private var start: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// Bytes written since the last ``removeAll()``.
    @exclusivity(unchecked) private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The bytes written so far.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Forgets the bytes written, keeping the memory.
    func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: start, count: count)
        start.deallocate()
        start = grown
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    /// A literal written as it is: the names, keys and categories of events are literals in
    /// this module with nothing to escape.
    @inline(__always)
    func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    @inline(__always)
    private func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        reserve(buffer.count)
        (start + count).update(from: base, count: buffer.count)
        count += buffer.count
    }

    /// `text` inside a JSON string: quotes, backslashes and control characters escaped. The
    /// runs between them are copied in one piece (SQL quotes its identifiers, so nearly every
    /// SQL text has a few quotes and long runs).
    func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var runStart = 0
            for index in buffer.indices {
                let byte = buffer[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
                appendEscaped(byte)
                runStart = index + 1
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...]))
        }
    }

    private func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append(#"\""#)
        case UInt8(ascii: "\\"): append(#"\\"#)
        case UInt8(ascii: "\n"): append(#"\n"#)
        case UInt8(ascii: "\t"): append(#"\t"#)
        case 0..<0x20:
            append(#"\u00"#)
            append(Self.hexDigit(byte >> 4))
            append(Self.hexDigit(byte & 0xF))
        default: append(byte)
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10 }

    /// A whole number in decimal.
    func appendInteger(_ value: Int) {
        reserve(21)
        if value < 0 {
            start[count] = UInt8(ascii: "-")
            count += 1
        }
        // The digits are written last first, then put in order.
        var magnitude = value.magnitude
        var end = count
        repeat {
            start[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            end += 1
        } while magnitude > 0
        var low = count
        var high = end - 1
        while low < high {
            let byte = start[low]
            start[low] = start[high]
            start[high] = byte
            low += 1
            high -= 1
        }
        count = end
    }

    /// `text` as it is written inside a JSON string.
    static func escaped(_ text: String) -> [UInt8] {
        let buffer = TraceJSONBuffer(capacity: text.utf8.count + 16)
        buffer.appendEscaped(text)
        return Array(buffer.bytes)
    }

    /// Bytes written as they are (a field or a text prepared once).
    func append(_ prepared: [UInt8]) {
        prepared.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// `nanoseconds` as microseconds with three decimals.
    func appendMicroseconds(_ nanoseconds: UInt64) {
        appendInteger(Int(nanoseconds / 1_000))
        let fraction = nanoseconds % 1_000
        reserve(4)
        start[count] = UInt8(ascii: ".")
        start[count + 1] = UInt8(ascii: "0") + UInt8(fraction / 100)
        start[count + 2] = UInt8(ascii: "0") + UInt8(fraction / 10 % 10)
        start[count + 3] = UInt8(ascii: "0") + UInt8(fraction % 10)
        count += 4
    }
}

extension TraceEvent {
    /// The `pid` field and the start of the `tid` field for process `pid`, written once for
    /// every event.
    static func processField(pid: Int32) -> [UInt8] { Array(#","pid":\#(pid),"tid":"#.utf8) }

    /// Appends the event as one JSON object; `processField` is ``processField(pid:)`` and
    /// `texts` the recording's texts, escaped, by number (a message is forgotten once written).
    func appendJSON(to out: TraceJSONBuffer, processField: [UInt8], texts: inout [[UInt8]]) {
        func appendText(_ text: TraceText) {
            let index = Int(text.id)
            guard index < texts.count else { return }
            out.append(texts[index])
            if text.isMessage { texts[index] = [] }
        }
        out.append(#"{"name":""#)
        out.append(name)
        if let detail {
            out.append(UInt8(ascii: " "))
            appendText(detail)
        }
        out.append(UInt8(ascii: "\""))
        if let category {
            out.append(#","cat":""#)
            out.append(category)
            out.append(UInt8(ascii: "\""))
        }
        out.append(#","ph":""#)
        out.append(phase.letter)
        out.append(#"","ts":"#)
        out.appendMicroseconds(time)
        if phase == .complete {
            out.append(#","dur":"#)
            out.appendMicroseconds(duration)
        }
        out.append(processField)
        out.appendInteger(track)
        if phase == .flowStart || phase == .flowFinish {
            out.append(#","id":"#)
            out.appendInteger(Int(truncatingIfNeeded: id))
        }
        // A flow's finish binds to the span that encloses it, not to the next one.
        if phase == .flowFinish { out.append(#","bp":"e""#) }
        if !arguments.isEmpty {
            out.append(#","args":{"#)
            var first = true
            arguments.each { argument in
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(UInt8(ascii: "\""))
                out.append(argument.key)
                out.append(#"":"#)
                switch argument.value {
                case .text(let text):
                    out.append(UInt8(ascii: "\""))
                    appendText(text)
                    out.append(UInt8(ascii: "\""))
                case .number(let number):
                    out.appendInteger(number)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
