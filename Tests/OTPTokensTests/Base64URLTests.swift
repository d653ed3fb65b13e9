import Testing

@testable import OTPTokens

@Suite struct Base64URLTests {
    @Test("encoding matches RFC 4648's test vectors without padding")
    func rfc4648Vectors() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode(Array("foobar".utf8)) == "Zm9vYmFy")
    }

    @Test("the URL-safe alphabet uses - and _ where base64 uses + and /")
    func urlSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(Base64URL.decode("+/+/") == nil)
    }

    @Test("every byte string of up to 40 bytes round-trips")
    func roundTrip() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test(
        "decoding refuses padding, whitespace, foreign characters and impossible lengths",
        arguments: ["Zg==", "Zm8=", "Zm9v=", "Zm 9v", "Zm9v\n", "Zm9v.", "Zm9vé", "Z", "Zm9vY", "=", "Zm9v+"]
    )
    func refusals(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("decoding refuses unused trailing bits that are not zero, so each value has one encoding")
    func canonicalOnly() {
        #expect(Base64URL.decode("Zg") == [0x66])
        #expect(Base64URL.decode("Zh") == nil)
        #expect(Base64URL.decode("Zm8") == [0x66, 0x6F])
        #expect(Base64URL.decode("Zm9") == nil)
    }
}
