import Foundation

/// Reads property lists from bytes that may be damaged — a store file's metadata, a
/// transformable attribute's stored data, a model bundle's `.xccurrentversion` — into plain
/// Swift values: `String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]` and `[String: Any]`.
/// Damaged bytes are a thrown error, never a crash. Safe to call from any thread.
///
/// Binary property lists are read with Foundation's `PropertyListDecoder`, not
/// `PropertyListSerialization`: on Linux the latter crashes inside the runtime's casts while it
/// bridges some damaged binary lists to Swift (a dictionary's marker turned into a set's, found
/// by the store-file fuzzer: `Fuzz/corpus/store-files/crash-e8fccfbb2dc15d76.sqlite`). The
/// decoder follows object references as it is asked for them, so a list that contains itself
/// would recurse without end (nesting deeper than ``maximumDepth`` is refused), and one whose
/// containers refer to the same container many times would be read once per reference — 2^40
/// values from 40 two-element arrays that each hold the next one twice, which hung
/// `PropertyListSerialization` as well. A list writers make holds every container once, so it
/// has fewer values than bytes: reading more values than the data has bytes is refused. XML property
/// lists (which have no sets) are read with `PropertyListSerialization`, whose XML parser refuses
/// deep nesting where the decoder's recursive XML scanner would overflow the stack.
enum PropertyListReader {
    /// The deepest nesting of arrays and dictionaries read (Strata writes two levels).
    static let maximumDepth = 256

    /// The property list in `data`, as plain Swift values.
    static func value(from data: Data) throws -> Any {
        if data.starts(with: binaryMagic) {
            let decoder = PropertyListDecoder()
            if let key = ReadBudget.key { decoder.userInfo[key] = ReadBudget(remaining: data.count) }
            return try decoder.decode(DecodedValue.self, from: data).value
        }
        return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    /// The first bytes of every binary property list.
    private static let binaryMagic = Data("bplist".utf8)

    /// One value of a binary property list, decoded by asking for each kind in turn.
    private struct DecodedValue: Decodable {
        let value: Any

        init(from decoder: any Decoder) throws {
            // The read's budget counts values and tracks depth; `codingPath` would give the depth
            // too, but builds an array of keys for every value it is asked for.
            let budget = ReadBudget.key.flatMap { decoder.userInfo[$0] as? ReadBudget }
            let depth = budget?.depth ?? decoder.codingPath.count
            guard depth < PropertyListReader.maximumDepth else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: "The property list nests deeper than \(PropertyListReader.maximumDepth) levels (or contains itself)"))
            }
            if let budget {
                budget.remaining -= 1
                guard budget.remaining >= 0 else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "The property list holds more values than bytes (its containers share contents)"))
                }
                budget.depth += 1
            }
            defer { budget?.depth -= 1 }
            if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
                var dictionary: [String: Any] = [:]
                for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(DecodedValue.self, forKey: key).value }
                value = dictionary
                return
            }
            if var unkeyed = try? decoder.unkeyedContainer() {
                var array: [Any] = []
                while !unkeyed.isAtEnd { array.append(try unkeyed.decode(DecodedValue.self).value) }
                value = array
                return
            }
            let single = try decoder.singleValueContainer()
            // Booleans first: a binary list marks them apart from integers, and the decoder
            // does not read one as the other.
            if let bool = try? single.decode(Bool.self) {
                value = bool
            } else if let integer = try? single.decode(Int.self) {
                value = integer
            } else if let real = try? single.decode(Double.self) {
                value = real
            } else if let string = try? single.decode(String.self) {
                value = string
            } else if let date = try? single.decode(Date.self) {
                value = date
            } else if let bytes = try? single.decode(Data.self) {
                value = bytes
            } else {
                throw DecodingError.dataCorruptedError(in: single, debugDescription: "A value of a kind property lists do not hold (a set, a UID or a damaged object)")
            }
        }
    }

    /// How many more values one read may decode, and how deep it is now (see ``value(from:)``).
    /// Used by one decode on one thread; `@unchecked Sendable` only because the decoder's
    /// `userInfo` holds `Sendable` values.
    private final class ReadBudget: @unchecked Sendable {
        /// The budget's key in the decoder's `userInfo` (the initializer cannot fail for a
        /// non-empty name; it is optional only in its declaration).
        static let key = CodingUserInfoKey(rawValue: "StrataPropertyListReadBudget")
        /// Values the read may still decode.
        var remaining: Int
        /// Containers open around the value being decoded.
        var depth = 0
        init(remaining: Int) { self.remaining = remaining }
    }

    /// Any dictionary key.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
