import Foundation
import OTPEngine
import Testing

@Suite struct TOTPTests {
    static let sha1Secret = Array("12345678901234567890".utf8)
    static let sha256Secret = Array("12345678901234567890123456789012".utf8)
    static let sha512Secret = Array(
        "1234567890123456789012345678901234567890123456789012345678901234".utf8)

    @Test("RFC 6238 Appendix B: SHA-1, SHA-256 and SHA-512, eight digits, 30 s steps")
    func rfc6238() {
        let rows: [(Int64, String, String, String)] = [
            (59, "94287082", "46119246", "90693936"),
            (1_111_111_109, "07081804", "68084774", "25091201"),
            (1_111_111_111, "14050471", "67062674", "99943326"),
            (1_234_567_890, "89005924", "91819424", "93441116"),
            (2_000_000_000, "69279037", "90698825", "38618901"),
            (20_000_000_000, "65353130", "77737706", "47863826"),
        ]
        for (seconds, sha1, sha256, sha512) in rows {
            let time = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(
                TOTP(secret: Self.sha1Secret, algorithm: .sha1, digits: 8).code(at: time) == sha1,
                "\(seconds)")
            #expect(TOTP(secret: Self.sha256Secret, algorithm: .sha256, digits: 8).code(at: time) == sha256)
            #expect(TOTP(secret: Self.sha512Secret, algorithm: .sha512, digits: 8).code(at: time) == sha512)
        }
    }

    @Test("RFC 4226 Appendix D: HOTP for counters 0 to 9")
    func rfc4226() {
        let expected = [
            "755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871",
            "520489",
        ]
        for (counter, code) in expected.enumerated() {
            #expect(
                TOTP.hotp(secret: Self.sha1Secret, counter: UInt64(counter), digits: 6, algorithm: .sha1)
                    == code)
        }
    }

    @Test("a code is good within ±1 step, once: a step at or before the last one used is refused")
    func windowAndReplay() throws {
        let totp = TOTP(secret: Self.sha1Secret)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let step = totp.step(at: now)
        let current = try #require(totp.code(at: now))
        let previous = try #require(totp.code(at: now.addingTimeInterval(-30)))
        let next = try #require(totp.code(at: now.addingTimeInterval(30)))
        let old = try #require(totp.code(at: now.addingTimeInterval(-60)))
        #expect(totp.matchingStep(for: current, at: now, after: nil) == step)
        #expect(totp.matchingStep(for: previous, at: now, after: nil) == step - 1)
        #expect(totp.matchingStep(for: next, at: now, after: nil) == step + 1)
        #expect(
            totp.matchingStep(for: old, at: now, after: nil) == nil, "two steps back is outside the window")
        #expect(totp.matchingStep(for: current, at: now, after: step) == nil, "replay of the step used")
        #expect(
            totp.matchingStep(for: previous, at: now, after: step) == nil, "an older step after a newer one")
        #expect(totp.matchingStep(for: next, at: now, after: step) == step + 1)
        #expect(totp.matchingStep(for: "000000x", at: now, after: nil) == nil)
    }

    @Test("the otpauth URI carries the base32 secret, issuer and the RFC 6238 defaults")
    func provisioningURI() throws {
        let uri = TOTP(secret: Array("12345678901234567890".utf8)).provisioningURI(
            account: "alice@example.org", issuer: "Example Co")
        #expect(
            uri == "otpauth://totp/Example%20Co:alice@example.org?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
                + "&issuer=Example%20Co&algorithm=SHA1&digits=6&period=30")
        let components = try #require(URLComponents(string: uri))
        #expect(components.scheme == "otpauth")
        #expect(
            components.queryItems?.first { $0.name == "secret" }?.value.flatMap(Base32.decode)
                == Self.sha1Secret)
    }

    @Test("base32 matches RFC 4648's test vectors, round-trips, and refuses other characters")
    func base32() {
        let vectors = [
            "": "", "f": "MY", "fo": "MZXQ", "foo": "MZXW6", "foob": "MZXW6YQ", "fooba": "MZXW6YTB",
            "foobar": "MZXW6YTBOI",
        ]
        for (plain, encoded) in vectors {
            #expect(Base32.encode(Array(plain.utf8)) == encoded)
            #expect(Base32.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base32.decode("mzxw6ytboi") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW1") == nil)
        // Only the canonical encoding: no length a whole number of bytes cannot have, no stray
        // bits past the last byte, no letters made by upper-casing other scripts.
        for malformed in [
            "A", "MZX", "MZXW6Y", "MZXW6YTBA", "MZ", "MZXR", "MZXW7", "ı", "ſ", "MZXW6ſ", "MZXW6=", "ß",
        ] {
            #expect(Base32.decode(malformed) == nil, "\(malformed)")
        }
        #expect(Base32.decode("MY") == Array("f".utf8), "the last character's spare bits are zero")
        #expect(TOTP.secret(inProvisioningURI: "otpauth://totp/E:a?secret=&issuer=E") == nil)
        #expect(
            TOTP.secret(inProvisioningURI: "otpauth://totp/E:a?secret=MZXW6&issuer=E") == Array("foo".utf8))
    }

    @Test("AES-256-GCM: the GCM spec's test cases 13 and 14, and a box opens only with its key and context")
    func secretBox() throws {
        let key = [UInt8](repeating: 0, count: 32)
        let nonce = [UInt8](repeating: 0, count: 12)
        let empty = try #require(SecretBox.sealForTesting([], key: key, nonce: nonce))
        #expect(Hex.encode(empty.tag) == "530f8afbc74536b9a963b4f1c4cb738b")
        let zeros = try #require(
            SecretBox.sealForTesting([UInt8](repeating: 0, count: 16), key: key, nonce: nonce))
        #expect(Hex.encode(zeros.cipher) == "cea7403d4d606b6e074ec5d3baf39d18")
        #expect(Hex.encode(zeros.tag) == "d0d1c8a799996bf0265b98b5d48ab919")

        var generator = SystemRandomNumberGenerator()
        let secretKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let box = try #require(
            SecretBox.seal(Self.sha1Secret, key: secretKey, context: Array("tf_1".utf8), using: &generator))
        #expect(box.count == 12 + 20 + 16)
        #expect(SecretBox.open(box, key: secretKey, context: Array("tf_1".utf8)) == Self.sha1Secret)
        #expect(SecretBox.open(box, key: key, context: Array("tf_1".utf8)) == nil, "another key")
        #expect(
            SecretBox.open(box, key: secretKey, context: Array("tf_2".utf8)) == nil, "moved to another record"
        )
        var flipped = box
        flipped[14] ^= 1
        #expect(SecretBox.open(flipped, key: secretKey, context: Array("tf_1".utf8)) == nil, "a flipped bit")
        #expect(SecretBox.open(Array(box.prefix(20)), key: secretKey, context: []) == nil, "too short")
        let again = try #require(
            SecretBox.seal(Self.sha1Secret, key: secretKey, context: Array("tf_1".utf8), using: &generator))
        #expect(again != box, "a fresh nonce each time")
    }
}
