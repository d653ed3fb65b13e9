import Testing

@testable import OTPTokens

/// Known answers from RFC 8037 Appendix A and RFC 8032 section 7.1.
@Suite struct RFC8037Tests {
    static let d = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
    static let x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    static let thumbprint = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
    static let signingInput = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    static let signature =
        "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    static func rfcKey() throws -> Ed25519SigningKey {
        try Ed25519SigningKey(seed: #require(Base64URL.decode(d)))
    }

    @Test("A.1: the private key d gives the public key x")
    func a1PublicKey() throws {
        let key = try Self.rfcKey()
        #expect(key.publicKey.count == 32)
        #expect(Base64URL.encode(key.publicKey) == Self.x)
    }

    @Test("A.2: the public JWK has kty OKP, crv Ed25519 and the RFC's x, and the RFC's JWK decodes")
    func a2PublicJWK() throws {
        let jwk = try Self.rfcKey().jwk
        #expect(jwk.kty == "OKP")
        #expect(jwk.crv == "Ed25519")
        #expect(jwk.x == Self.x)
        #expect(jwk.alg == "EdDSA")
        #expect(jwk.use == "sig")
        let set = try JSONWebKeySet.decode(
            Array(
                #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
                    .utf8))
        #expect(set.keys == [JSONWebKey(kty: "OKP", crv: "Ed25519", x: Self.x)])
    }

    @Test("A.3: the key ID is the RFC 7638 JWK thumbprint")
    func a3Thumbprint() throws {
        let key = try Self.rfcKey()
        #expect(key.keyID == Self.thumbprint)
        #expect(key.jwk.kid == Self.thumbprint)
    }

    @Test("A.4: the JWS of \"Example of Ed25519 signing\" under {\"alg\":\"EdDSA\"} has the RFC's signature")
    func a4Signature() throws {
        let key = try Self.rfcKey()
        #expect(TokenFixtures.part(#"{"alg":"EdDSA"}"#) == "eyJhbGciOiJFZERTQSJ9")
        #expect(TokenFixtures.part("Example of Ed25519 signing") == "RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc")
        let expected = try #require(Base64URL.decode(Self.signature))
        let input = Array(Self.signingInput.utf8)
        let signature = key.sign(input)
        #if canImport(CryptoKit)
            // CryptoKit randomizes Ed25519 signatures; they verify but do not equal the RFC's.
            #expect(Ed25519.isValidSignature(signature, of: input, publicKey: key.publicKey))
        #else
            #expect(signature == expected)
        #endif
        #expect(Ed25519.isValidSignature(expected, of: input, publicKey: key.publicKey))
        var tampered = expected
        tampered[0] ^= 1
        #expect(!Ed25519.isValidSignature(tampered, of: input, publicKey: key.publicKey))
    }

    @Test("A.4's JWS is refused by the verifier because its header names no kid")
    func a4WithoutKid() throws {
        let key = try Self.rfcKey()
        let verifier = ApprovalTokenVerifier(
            keySet: ApprovalTokenSigner(keys: [key]).keySet, issuer: TokenFixtures.issuer,
            audience: TokenFixtures.audience, now: { TokenFixtures.nowDate })
        TokenFixtures.expectRejected(Self.signingInput + "." + Self.signature, as: .unknownKey, by: verifier)
    }

    @Test("RFC 8032 test 1: the empty message's public key and signature")
    func rfc8032Test1() throws {
        let seed = TokenFixtures.bytes("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
        let publicKey = TokenFixtures.bytes(
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let expected = TokenFixtures.bytes(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        let key = try Ed25519SigningKey(seed: seed)
        #expect(key.publicKey == publicKey)
        let signature = key.sign([])
        #expect(signature.count == 64)
        #if canImport(CryptoKit)
            #expect(Ed25519.isValidSignature(signature, of: [], publicKey: publicKey))
        #else
            #expect(signature == expected)
        #endif
        #expect(Ed25519.isValidSignature(expected, of: [], publicKey: publicKey))
        #expect(!Ed25519.isValidSignature(expected, of: [0], publicKey: publicKey))
    }

    @Test("SHA-256 matches FIPS 180-2's abc vector and the empty message")
    func sha256() {
        #expect(
            SHA256Hash.hash(Array("abc".utf8))
                == TokenFixtures.bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        #expect(
            SHA256Hash.hash([])
                == TokenFixtures.bytes("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
    }

    @Test("the test HMAC used to forge HS256 tokens matches RFC 4231 case 2")
    func testHMAC() {
        #expect(
            TokenFixtures.hmacSHA256(
                key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
                == TokenFixtures.bytes("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
    }
}
