import Foundation
import Testing

@testable import Strata

// The trace's writer formats events itself (Sources/Strata/Support/Trace/TraceJSONBuffer.swift):
// what it writes must be JSON (RFC 8259) that a parser reads back as the values given, whatever
// the numbers and texts.
@Suite("Trace JSON: numbers and strings written by hand parse back unchanged")
struct TraceJSONBufferTests {
    /// `bytes` parsed as the single JSON value they hold.
    func parsed(_ buffer: TraceJSONBuffer) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(buffer.bytes), options: .fragmentsAllowed)
    }

    @Test("whole numbers at both ends of Int's range and in between", arguments: [0, 7, -7, 10, 99, 100, 1_000_000_007, Int.max, Int.min + 1])
    func integers(value: Int) throws {
        let buffer = TraceJSONBuffer(capacity: 1)
        buffer.appendInteger(value)
        #expect((try parsed(buffer) as? NSNumber)?.int64Value == Int64(value))
    }

    @Test("Int.min, whose magnitude Int cannot hold")
    func smallestInteger() throws {
        let buffer = TraceJSONBuffer(capacity: 1)
        buffer.appendInteger(Int.min)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "\(Int.min)")
    }

    @Test("microseconds with three decimals from nanoseconds")
    func microseconds() throws {
        let buffer = TraceJSONBuffer()
        buffer.appendMicroseconds(1_234_005)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == "1234.005")
    }

    @Test(
        "strings with quotes (as SQL has), backslashes, control characters and non-ASCII text",
        arguments: ["", "plain", #"SELECT t0.Z_PK FROM "ZPERSON" t0"#, "\"", "\\", "a\nb\tc\u{1}\u{1F}", "é 漢 🚀 \u{7F}", String(repeating: "x\"", count: 5_000)])
    func strings(text: String) throws {
        let buffer = TraceJSONBuffer(capacity: 8)
        buffer.append(UInt8(ascii: "\""))
        buffer.appendEscaped(text)
        buffer.append(UInt8(ascii: "\""))
        #expect(try parsed(buffer) as? String == text)
        #expect(TraceJSONBuffer.escaped(text) == Array(buffer.bytes.dropFirst().dropLast()))
    }

    @Test("a text table numbers a text once and hands a message to the writer once")
    func textTable() {
        let table = TraceTextTable()
        var cache = TraceTextCache()
        let sql = "SELECT \(Int.random(in: 0..<10))"  // a string with its own storage
        let first = cache.number(of: sql, in: table)
        #expect(cache.number(of: sql, in: table).id == first.id)
        #expect(table.number(of: String(sql)).id == first.id)
        #expect(cache.number(of: "other", in: table).id != first.id)
        let message = table.number(ofMessage: "failed \"here\"")
        #expect(message.isMessage)
        let texts = table.takeEscapedTexts(from: 0)
        #expect(texts.count == 3)
        #expect(texts[Int(first.id)] == Array(sql.utf8))
        #expect(texts[Int(message.id)] == Array(#"failed \"here\""#.utf8))
        #expect(table.takeEscapedTexts(from: 0)[Int(message.id)].isEmpty)
    }
}
