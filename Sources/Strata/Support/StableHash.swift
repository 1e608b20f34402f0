import Foundation

/// A stable 128-bit FNV-1a hash, used for model and entity version hashes.
///
/// Version hashes only need to be stable across processes and platforms and to change when the
/// hashed description changes; they are not a security boundary, so no cryptographic hash
/// (unavailable in Foundation on Linux) is needed.
struct StableHash {
    private var low: UInt64 = 0xcbf2_9ce4_8422_2325
    private var high: UInt64 = 0x6c62_272e_07bb_0142

    mutating func combine(_ text: String) {
        for byte in text.utf8 { combine(byte) }
        combine(0x1F)  // field separator, so ("ab","c") and ("a","bc") differ
    }

    mutating func combine(_ byte: UInt8) {
        low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        high = (high ^ UInt64(byte) ^ (low >> 29)) &* 0x0000_0100_0000_01B3
    }

    mutating func combine(_ data: Data) {
        for byte in data { combine(byte) }
        combine(0x1E)
    }

    var data: Data {
        var bytes = Data()
        withUnsafeBytes(of: low.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: high.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }
}

extension Data {
    /// Lower-case hexadecimal rendering (two digits a byte, from a table: a store compares its
    /// model's version hash in hex every time it is opened).
    var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: count * 2) { buffer in
            digits.withUTF8Buffer { table in
                var position = 0
                for byte in self {
                    buffer[position] = table[Int(byte >> 4)]
                    buffer[position + 1] = table[Int(byte & 0x0f)]
                    position += 2
                }
                return position
            }
        }
    }
}
