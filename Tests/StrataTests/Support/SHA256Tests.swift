import Foundation
import Testing

@testable import Strata

/// Strata's SHA-256 (`Sources/Strata/Support/SHA256.swift`), which names external binary data
/// files. The expected digests are the FIPS 180-4 examples and NIST's published test vectors
/// (NIST CSRC "Cryptographic Standards and Guidelines: Examples with Intermediate Values",
/// SHA-256; the million-"a" vector of FIPS 180-2 Appendix B.3). Core Data names its external
/// files by UUID; Strata names them by content, so equal values share one file.
@Suite("SHA-256")
struct SHA256Tests {
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    @Test("NIST vectors")
    func vectors() {
        for (message, digest) in Self.vectors {
            #expect(SHA256.hexDigest(Data(message.utf8)) == digest, "message \"\(message)\"")
        }
    }

    @Test("one million 'a'")
    func millionA() {
        let data = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexDigest(data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("feeding the message in pieces gives the one-shot digest, at every padding boundary")
    func pieces() {
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let data = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            var hasher = SHA256()
            var offset = 0
            var step = 1
            while offset < length {
                let end = min(length, offset + step)
                hasher.update(data.subdata(in: offset..<end))
                offset = end
                step = step % 70 + 13
            }
            #expect(SHA256.hex(hasher.finalize()) == SHA256.hexDigest(data), "length \(length)")
        }
    }
}
