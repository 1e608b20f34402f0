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

    /// `index` as a binary list's object reference or offset of `width` bytes, big-endian.
    static func reference(_ index: Int, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: index >> ($0 * 8)) }
    }

    /// A binary list of `objects` (each its marker byte and body, references `width` bytes
    /// wide), the first one the top; the offset table's entries are `width` bytes too.
    static func binaryList(_ objects: [[UInt8]], width: Int = 1) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = UInt64(bytes.count)
        for offset in offsets { bytes += reference(offset, width: width) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(width), UInt8(width)]  // unused, offset size, reference size
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
        let chain = (0..<depth).map { [0xA1] + Self.reference($0 + 1, width: 4) } + [[0x51, 0x78]]
        #expect(throws: (any Error).self) { try PropertyListReader.value(from: Self.binaryList(chain, width: 4)) }
        // Within the limit, both read.
        let shallow =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\">" + String(repeating: "<array>", count: 100) + "<string>x</string>"
            + String(repeating: "</array>", count: 100) + "</plist>"
        #expect(try PropertyListReader.value(from: Data(shallow.utf8)) is [Any])
        let shallowChain = (0..<100).map { [0xA1] + Self.reference($0 + 1, width: 4) } + [[0x51, 0x78]]
        #expect(try PropertyListReader.value(from: Self.binaryList(shallowChain, width: 4)) is [Any])
        // Depth is the nesting around a value, not a count of containers read: 200 sibling
        // arrays (each holding a string) under one array read.
        let top: [UInt8] = [0xAF, 0x10, 200] + (1...200).flatMap { Self.reference($0, width: 2) }
        let siblings = [top] + (1...200).map { _ in [0xA1] + Self.reference(201, width: 2) } + [[0x51, 0x78]]
        #expect((try PropertyListReader.value(from: Self.binaryList(siblings, width: 2)) as? [Any])?.count == 200)
    }
}
