import Testing

@testable import OTPTokens

@Suite struct SigningKeyTests {
    @Test(
        "a seed of any length but 32 bytes is refused with a sentence that shows no byte",
        arguments: [0, 16, 31, 33, 64])
    func seedLength(count: Int) {
        let seed = [UInt8](repeating: 0xA7, count: count)
        let error = #expect(throws: TokenKeyError.self) { try Ed25519SigningKey(seed: seed) }
        #expect(error?.description.contains("32 bytes") == true)
        #expect(error?.description.contains("167") == false)
        #expect(error?.description.lowercased().contains("a7") == false)
    }

    @Test("descriptions, debug descriptions and dumps show the key ID and never the seed")
    func descriptionsHideTheSeed() {
        let key = TokenFixtures.currentKey
        var dumped = ""
        dump(key, to: &dumped)
        let texts = [
            key.description, key.debugDescription, String(describing: key), String(reflecting: key), "\(key)",
            dumped,
        ]
        for text in texts {
            #expect(text.contains(key.keyID))
            for secret in [
                Base64URL.encode(TokenFixtures.currentSeed), TokenFixtures.hex(TokenFixtures.currentSeed),
                "\(TokenFixtures.currentSeed)", "1, 2, 3, 4",
            ] {
                #expect(!text.contains(secret))
            }
        }
        #expect(!dumped.contains("seed"))
    }

    @Test("signatures are 64 bytes and verify only for their message and key")
    func signatures() {
        let key = TokenFixtures.currentKey
        let message = Array("header.payload".utf8)
        let signature = key.sign(message)
        #expect(signature.count == 64)
        #expect(Ed25519.isValidSignature(signature, of: message, publicKey: key.publicKey))
        #expect(!Ed25519.isValidSignature(signature, of: message + [0], publicKey: key.publicKey))
        #expect(!Ed25519.isValidSignature(signature, of: message, publicKey: TokenFixtures.oldKey.publicKey))
        #expect(!Ed25519.isValidSignature(Array(signature.prefix(63)), of: message, publicKey: key.publicKey))
    }

    @Test("different seeds give different public keys and key IDs")
    func distinctKeys() {
        let keys = [TokenFixtures.currentKey, TokenFixtures.oldKey, TokenFixtures.attackerKey]
        #expect(Set(keys.map(\.keyID)).count == 3)
        #expect(Set(keys.map(\.publicKey)).count == 3)
        for key in keys {
            #expect(key.keyID.count == 43)
            #expect(key.jwk.kid == key.keyID)
            #expect(key.jwk.x == Base64URL.encode(key.publicKey))
        }
    }
}
