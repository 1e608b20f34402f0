import Foundation
import Testing

@testable import Strata

/// `PropertyListReader` reads the property lists Strata finds on disk: a store's metadata (Core
/// Data keeps it as a binary property list in `Z_METADATA`), transformable attributes' data and
/// a model bundle's `.xccurrentversion` (XML). Core Data refuses a store whose metadata it cannot
/// read with an error; damaged bytes here must be a thrown error, never a crash.
@Suite("Property list reader")
struct PropertyListReaderTests {
    static var sample: [String: Any] {
        [
            "string": "text", "integer": 2, "negative": -3, "largest": Int.max, "real": 1.5, "yes": true, "no": false,
            "date": Date(timeIntervalSinceReferenceDate: 5), "data": Data([1, 2]), "array": [1, "s"] as [Any], "nested": ["a": ["b": "c"]],
        ]
    }

    static func check(_ value: Any) throws {
        let dictionary = try #require(value as? [String: Any])
        #expect(dictionary["string"] as? String == "text")
        #expect(dictionary["integer"] as? Int == 2)
        #expect(dictionary["negative"] as? Int == -3)
        #expect(dictionary["largest"] as? Int == Int.max)
        #expect(dictionary["real"] as? Double == 1.5)
        #expect(dictionary["yes"] as? Bool == true)
        #expect(dictionary["no"] as? Bool == false)
        #expect(dictionary["date"] as? Date == Date(timeIntervalSinceReferenceDate: 5))
        #expect(dictionary["data"] as? Data == Data([1, 2]))
        let array = try #require(dictionary["array"] as? [Any])
        #expect(array.count == 2 && array[0] as? Int == 1 && array[1] as? String == "s")
        #expect((dictionary["nested"] as? [String: Any])?["a"] as? [String: String] == ["b": "c"])
    }

    @Test("binary and XML property lists read back every kind of value with its type")
    func roundTrips() throws {
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: Self.sample, format: format, options: 0)
            try Self.check(try PropertyListReader.value(from: data))
        }
    }

    /// A binary list of `objects` (each its marker byte and body), the first one the top;
    /// offsets and references are one byte.
    static func binaryList(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let tableOffset = UInt64(bytes.count)
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, offset size 1, reference size 1
        for field in [UInt64(objects.count), 0, tableOffset] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
        return Data(bytes)
    }

    @Test("a dictionary marker damaged into a set's, a list that contains itself, shared containers and unknown markers are errors")
    func damagedBinaryLists() throws {
        // The store-file fuzzer's find: `PropertyListSerialization` crashed bridging this.
        let set = Self.binaryList([[0xC1, 1], [0x51, 0x78]])
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: set) }
        // An array whose only element is itself.
        let cycle = Self.binaryList([[0xA1, 0]])
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: cycle) }
        // A UID (keyed-archiver references), then a marker no list uses, then a truncated list.
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Self.binaryList([[0x80, 1]])) }
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Self.binaryList([[0x70]])) }
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Self.binaryList([[0x51, 0x78]]).prefix(20)) }
        // 40 two-element arrays, each holding the next one twice: 2^40 values if each reference
        // were read anew (PropertyListSerialization hangs on it); more values than bytes is an error.
        let shared = Self.binaryList((0..<40).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] } + [[0x51, 0x78]])
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: shared) }
        // The undamaged list reads.
        #expect(try PropertyListReader.value(from: Self.binaryList([[0xA1, 1], [0x51, 0x78]])) as? [String] == ["x"])
    }

    @Test("nesting deeper than the limit is an error in binary and XML lists, not a stack overflow")
    func deepNesting() throws {
        let depth = 100_000
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Data(xml.utf8)) }
        // Binary: object i is an array holding object i + 1 (four-byte references and offsets).
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt32] = []
        for index in 0..<depth {
            offsets.append(UInt32(bytes.count))
            bytes += [0xA1] + withUnsafeBytes(of: UInt32(index + 1).bigEndian, Array.init)
        }
        offsets.append(UInt32(bytes.count))
        bytes += [0x51, 0x78]
        let tableOffset = UInt64(bytes.count)
        for offset in offsets { bytes += withUnsafeBytes(of: offset.bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]
        for field in [UInt64(depth + 1), 0, tableOffset] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Data(bytes)) }
        // Within the limit, both read.
        let shallow =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100) + "<string>x</string>"
            + String(repeating: "</array>", count: 100) + "</plist>"
        #expect(try PropertyListReader.value(from: Data(shallow.utf8)) is [Any])
    }
}
