import OTPCore
import Testing

@testable import OTPEngine

@Suite struct HMACTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { name }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            // A malformed vector reads as a zero byte, and its comparison fails.
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// RFC 4231, section 4: HMAC-SHA-256 test cases 1–4, 6 and 7 (case 5 is the truncation case, below).
    static let vectors: [Vector] = [
        Vector(
            name: "case 1", key: [UInt8](repeating: 0x0B, count: 20), data: Array("Hi There".utf8),
            mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "case 3", key: [UInt8](repeating: 0xAA, count: 20),
            data: [UInt8](repeating: 0xDD, count: 50),
            mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "case 4", key: Array(1...25), data: [UInt8](repeating: 0xCD, count: 50),
            mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "case 6", key: [UInt8](repeating: 0xAA, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "case 7", key: [UInt8](repeating: 0xAA, count: 131),
            data: Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("HMAC-SHA256 matches the RFC 4231 vectors", arguments: vectors)
    func rfc4231(vector: Vector) {
        #expect(
            HMACSHA256.authenticationCode(key: vector.key, message: vector.data) == Self.bytes(vector.mac))
    }

    @Test(
        "a prepared key gives the RFC 4231 codes, again and again, and keeps no state between calls",
        arguments: vectors)
    func preparedKey(vector: Vector) {
        let key = HMACSHA256.Key(vector.key)
        let expected = Self.bytes(vector.mac)
        #expect(key.authenticationCode(vector.data) == expected)
        #expect(key.authenticationCode(Array("something else".utf8)) != expected)
        #expect(key.authenticationCode(vector.data) == expected)
        // Written into a caller's buffer, past which nothing is touched.
        var buffer = [UInt8](repeating: 0xEE, count: 40)
        buffer.withUnsafeMutableBytes { out in
            vector.data.withUnsafeBytes { key.authenticationCode($0, into: out) }
        }
        #expect(Array(buffer.prefix(32)) == expected)
        #expect(buffer.suffix(8).allSatisfy { $0 == 0xEE })
    }

    @Test(
        "a joined message, first ‖ 0x00 ‖ second, gives the code of those bytes (values from Python's hmac)",
        arguments: [
            (
                "what do ya", "want for nothing?",
                "42b4c08329a84bc32d09fd144b387c697f41fc088aa400bb44dc6cc936f6c849"
            ),
            ("", "", "b673dc17f22b360d267af4bf852334fa37e194200550ac22ff29d55ee5fc8e90"),
            ("vérif", "código 🔑", "c178a8b50686de1646d7f0221d9cca769c5518c650d590bf351750a96fa2f132"),
        ])
    func joined(first: String, second: String, mac: String) {
        let key = HMACSHA256.Key(Array("Jefe".utf8))
        #expect(key.authenticationCode(joining: first, second) == Self.bytes(mac))
        #expect(key.authenticationCode(Array(first.utf8) + [0] + Array(second.utf8)) == Self.bytes(mac))
        // Where the zero byte falls is part of the message.
        #expect(key.authenticationCode(joining: first + "x", second) != Self.bytes(mac))
        // A string longer than a small one, and one past a typical stack buffer, take the same path.
        let long = String(repeating: "0123456789", count: 500)
        #expect(
            key.authenticationCode(joining: long, second)
                == key.authenticationCode(Array(long.utf8) + [0] + Array(second.utf8)))
    }

    @Test("hex: two lower-case digits per byte, from arrays and slices, short and long")
    func hex() {
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xF0, 0xFF, 0xAB, 0x5C]) == "000ff0ffab5c")
        #expect(Hex.encode([UInt8](0...255)[250...]) == "fafbfcfdfeff")
        let long = Hex.encode([UInt8](0...255))
        #expect(long.count == 512)
        #expect(long.hasPrefix("000102") && long.hasSuffix("fdfeff"))
    }

    @Test("HMAC-SHA256 matches RFC 4231 case 5 truncated to 128 bits")
    func rfc4231Truncated() throws {
        let mac = try #require(
            HMACSHA256.authenticationCode(
                key: [UInt8](repeating: 0x0C, count: 20), message: Array("Test With Truncation".utf8)))
        #expect(Array(mac.prefix(16)) == Self.bytes("a3b6167473100ee06e0c796c2955552b"))
    }

    @Test("a one-bit change in key or message changes the code")
    func avalanche() throws {
        let vector = Self.vectors[1]
        var key = vector.key
        key[0] ^= 1
        var data = vector.data
        data[data.count - 1] ^= 1
        let expected = Self.bytes(vector.mac)
        #expect(HMACSHA256.authenticationCode(key: key, message: vector.data) != expected)
        #expect(HMACSHA256.authenticationCode(key: vector.key, message: data) != expected)
    }

    @Test("an empty key and an empty message still give a 32-byte code")
    func emptyInputs() throws {
        let mac = try #require(HMACSHA256.authenticationCode(key: [], message: []))
        #expect(mac == Self.bytes("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test("constant-time comparison tells equal from different at every position and length")
    func constantTimeEqual() {
        let base = [UInt8](repeating: 0x5A, count: 32)
        #expect(HMACSHA256.constantTimeEqual(base, base))
        #expect(HMACSHA256.constantTimeEqual([], []))
        for position in base.indices {
            var other = base
            other[position] ^= 0x80
            #expect(!HMACSHA256.constantTimeEqual(base, other))
        }
        #expect(!HMACSHA256.constantTimeEqual(base, Array(base.prefix(31))))
        #expect(!HMACSHA256.constantTimeEqual(Array(base.prefix(31)), base))
    }

    @Test("an inline digest holds a joined message's code: the bytes the array holds, for the same vector")
    func inlineDigest() {
        let key = HMACSHA256.Key(Array("Jefe".utf8))
        let digest = key.digest(joining: "what do ya", "want for nothing?")
        let expected = Self.bytes("42b4c08329a84bc32d09fd144b387c697f41fc088aa400bb44dc6cc936f6c849")
        #expect(digest.bytes == expected)
        #expect(digest.equalsInConstantTime(expected))
        #expect(HMACDigest(expected) == digest)
        #expect(key.digest(joining: "what do ya", "want for nothing!") != digest)
    }

    @Test("an inline digest tells equal from different at every byte, and any length but 32 from its own")
    func inlineDigestNegatives() throws {
        let base = [UInt8](0..<32)
        let digest = try #require(HMACDigest(base))
        for position in base.indices {
            var other = base
            other[position] ^= 0x01
            #expect(!digest.equalsInConstantTime(other), "byte \(position)")
            #expect(!CandidateHash(other).matches(base))
        }
        #expect(!digest.equalsInConstantTime(Array(base.prefix(31))))
        #expect(!digest.equalsInConstantTime(base + [0]))
        #expect(!digest.equalsInConstantTime([]))
        #expect(HMACDigest(Array(base.prefix(31))) == nil)
        #expect(HMACDigest(base + [0]) == nil)
        // A candidate of another length is kept as given, and never matches a 32-byte hash.
        #expect(CandidateHash([1, 2, 3]) == .other([1, 2, 3]))
        #expect(CandidateHash([1, 2, 3]).bytes == [1, 2, 3])
        #expect(!CandidateHash([1, 2, 3]).matches(base))
        #expect(CandidateHash([1, 2, 3]).matches([1, 2, 3]))
        #expect(CandidateHash(base) == .digest(digest))
        #expect(CandidateHash(base).matches(base))
    }

    @Test("a code's hash needs the same key, id and whole code to match")
    func hasherNegatives() throws {
        let hasher = CodeHasher(secret: testSecret)
        let stored = try #require(hasher.hash(id: "vf_one", code: "482019"))
        #expect(stored.count == 32)
        #expect(hasher.matches(id: "vf_one", code: "482019", storedHash: stored))
        // wrong key
        var otherKey = testSecret
        otherKey[31] ^= 1
        #expect(!CodeHasher(secret: otherKey).matches(id: "vf_one", code: "482019", storedHash: stored))
        // wrong id, and the same code of another verification
        #expect(!hasher.matches(id: "vf_two", code: "482019", storedHash: stored))
        // truncated and extended codes
        #expect(!hasher.matches(id: "vf_one", code: "48201", storedHash: stored))
        #expect(!hasher.matches(id: "vf_one", code: "4820190", storedHash: stored))
        // moving the boundary between id and code does not produce the same message
        #expect(!hasher.matches(id: "vf_one4", code: "82019", storedHash: stored))
        // a truncated stored hash never matches
        #expect(!hasher.matches(id: "vf_one", code: "482019", storedHash: Array(stored.prefix(16))))
    }

    @Test("opaque limit keys depend on the key and the purpose, and hide the value")
    func opaqueKeys() throws {
        let hasher = CodeHasher(secret: testSecret)
        let key = try #require(hasher.opaqueKey("sd", "+15555550100"))
        #expect(key.count == 32)
        #expect(!key.contains("5555550100"))
        #expect(hasher.opaqueKey("sd", "+15555550100") == key)
        #expect(hasher.opaqueKey("fd", "+15555550100") != key)
        #expect(CodeHasher(secret: Array(1...32)).opaqueKey("sd", "+15555550100") != key)
    }
}
