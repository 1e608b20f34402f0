import Foundation
import StrataLocks

/// The texts of one recording, each numbered once (SQL statements, entity names, track names)
/// and kept as the JSON string it is written as, escaped once. Events carry the numbers
/// (``TraceText``); the writer copies the prepared bytes. Messages (errors' descriptions, which
/// seldom recur) get a number each and are handed to the writer once, then forgotten. Callable
/// from any thread.
final class TraceTextTable: Sendable {
    private struct Contents {
        var numbers: [String: UInt32] = [:]
        var escaped: [[UInt8]] = []
        /// Messages not yet taken by the writer, by number.
        var messages: [UInt32: [UInt8]] = [:]
    }

    private let contents = StrataLock(Contents())

    /// The number of `text`, given to it now if it has none.
    func number(of text: String) -> TraceText {
        contents.withLock { contents in
            if let id = contents.numbers[text] { return TraceText(id: id) }
            let id = UInt32(truncatingIfNeeded: contents.escaped.count)
            contents.numbers[text] = id
            contents.escaped.append(TraceJSONBuffer.escaped(text))
            return TraceText(id: id)
        }
    }

    /// A new number for the message `text`.
    func number(ofMessage text: String) -> TraceText {
        let escaped = TraceJSONBuffer.escaped(text)
        return contents.withLock { contents in
            let id = UInt32(truncatingIfNeeded: contents.escaped.count)
            contents.escaped.append([])
            contents.messages[id] = escaped
            return TraceText(id: id, isMessage: true)
        }
    }

    /// The prepared texts numbered `start` and up, for the writer: a message is in it the first
    /// time it is asked for, and empty later.
    func takeEscapedTexts(from start: Int) -> [[UInt8]] {
        contents.withLock { contents in
            var texts = Array(contents.escaped[min(start, contents.escaped.count)...])
            guard !contents.messages.isEmpty else { return texts }
            for (id, message) in contents.messages where Int(id) >= start {
                texts[Int(id) - start] = message
                contents.messages[id] = nil
            }
            return texts
        }
    }
}

/// What a thread remembers of the texts it numbered for one recording, so that numbering a text
/// it saw before (the same SQL statement, the same entity name) takes no lock and hashes no
/// characters: entries are found by the string's two words (its count and its storage, or the
/// characters of a short one). The entry keeps its string, so the storage those words name
/// stays alive and unchanged while it is remembered.
struct TraceTextCache {
    private struct Key: Hashable {
        let first: UInt64
        let second: UInt64
    }

    /// Entries kept before the cache starts over (texts that keep changing, like error
    /// messages, must not make it grow without bound).
    static let limit = 1_024

    private var entries: [Key: (text: String, number: TraceText)] = [:]

    /// The number of `text` in `table`, remembered for next time.
    mutating func number(of text: String, in table: TraceTextTable) -> TraceText {
        guard MemoryLayout<String>.size == MemoryLayout<Key>.size else { return table.number(of: text) }
        let key = unsafeBitCast(text, to: Key.self)
        if let entry = entries[key], entry.text == text { return entry.number }
        let number = table.number(of: text)
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = (text, number)
        return number
    }
}
