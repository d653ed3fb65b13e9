import Testing

@testable import OTPTokens

/// Tokens an attacker could make or change: each is refused, for the reason it is built to test.
@Suite struct ApprovalTokenAttackTests {
    typealias F = TokenFixtures

    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("a header whose alg was changed after signing is refused")
    func tamperedHeader() {
        let original = Self.parts(F.token())
        let changedAlg = F.part(F.header(alg: "ES256")) + "." + original[1] + "." + original[2]
        F.expectRejected(changedAlg, as: .unsupportedAlgorithm)
        // A header changed in a member the verifier does not read still breaks the signature.
        let changedTyp = F.part(#"{"alg":"EdDSA","kid":"\#(F.currentKey.keyID)","typ":"jwt"}"#)
        F.expectRejected(changedTyp + "." + original[1] + "." + original[2], as: .badSignature)
    }

    @Test("a payload changed after signing is refused")
    func tamperedPayload() {
        let original = Self.parts(F.token())
        let payload = F.part(F.claims(aud: "https://evil.example.com").jsonText)
        F.expectRejected(original[0] + "." + payload + "." + original[2], as: .badSignature)
    }

    @Test("alg none with an empty signature is refused")
    func algNone() {
        for alg in ["none", "None", "NONE", "nOnE"] {
            let input = F.part(F.header(alg: alg)) + "." + F.part(F.payload)
            F.expectRejected(input + ".", as: .unsupportedAlgorithm)
        }
        // The same without a kid, and with no header members at all but alg.
        F.expectRejected(
            F.part(#"{"alg":"none"}"#) + "." + F.part(F.payload) + ".", as: .unsupportedAlgorithm)
    }

    @Test(
        "any alg but exactly EdDSA is refused, even over a signature by the right key",
        arguments: ["HS256", "RS256", "ES256", "eddsa", "EDDSA", "EdDSA ", " EdDSA", "Ed25519", "EdDsa", ""])
    func otherAlgorithms(alg: String) {
        let token = F.token(header: F.header(alg: alg), payload: F.payload, signedBy: F.currentKey)
        F.expectRejected(token, as: .unsupportedAlgorithm)
    }

    @Test("a header without alg, or with alg not a string, is refused")
    func missingAlg() {
        let kid = F.currentKey.keyID
        F.expectRejected(
            F.token(header: #"{"kid":"\#(kid)"}"#, payload: F.payload, signedBy: F.currentKey),
            as: .unsupportedAlgorithm)
        F.expectRejected(
            F.token(
                header: #"{"alg":["EdDSA"],"kid":"\#(kid)"}"#, payload: F.payload, signedBy: F.currentKey),
            as: .malformed)
    }

    @Test("an HS256 token MACed with the public key as the secret is refused")
    func hmacConfusion() {
        let key = F.currentKey
        let input = F.part(F.header(alg: "HS256", kid: key.keyID)) + "." + F.part(F.payload)
        for secret in [key.publicKey, Array(key.jwk.x.utf8), F.currentKey.keySetJSON] {
            let mac = F.hmacSHA256(key: secret, message: Array(input.utf8))
            #expect(mac.count == 32)
            F.expectRejected(input + "." + Base64URL.encode(mac), as: .unsupportedAlgorithm)
        }
        // Relabelled as EdDSA, the 32-byte MAC is no signature either.
        let relabelled = F.part(F.header(kid: key.keyID)) + "." + F.part(F.payload)
        let mac = F.hmacSHA256(key: key.publicKey, message: Array(relabelled.utf8))
        F.expectRejected(relabelled + "." + Base64URL.encode(mac), as: .badSignature)
    }

    @Test("a kid that is not in the key set is refused")
    func wrongKid() {
        for kid in ["not-a-key", F.oldKey.keyID, F.attackerKey.keyID, "", F.currentKey.keyID.lowercased()] {
            let token = F.token(header: F.header(kid: kid), payload: F.payload, signedBy: F.currentKey)
            F.expectRejected(token, as: .unknownKey)
        }
    }

    @Test("a header without a kid is refused")
    func absentKid() {
        let token = F.token(header: F.header(kid: nil), payload: F.payload, signedBy: F.currentKey)
        F.expectRejected(token, as: .unknownKey)
        F.expectRejected(
            F.token(header: #"{"alg":"EdDSA"}"#, payload: F.payload, signedBy: F.currentKey), as: .unknownKey)
    }

    @Test("a token signed by another key under the right kid is refused")
    func otherKeyRightKid() {
        let token = F.token(
            header: F.header(kid: F.currentKey.keyID), payload: F.payload, signedBy: F.attackerKey)
        F.expectRejected(token, as: .badSignature)
        F.expectRejected(
            F.token(header: F.header(kid: F.currentKey.keyID), payload: F.payload, signedBy: F.oldKey),
            as: .badSignature)
    }

    @Test("flipping any one bit of the signature makes it invalid")
    func flippedSignatureBits() throws {
        let parts = Self.parts(F.token())
        let signature = try #require(Base64URL.decode(parts[2]))
        for bit in stride(from: 0, to: 512, by: 7) {
            var flipped = signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            F.expectRejected(parts[0] + "." + parts[1] + "." + Base64URL.encode(flipped), as: .badSignature)
        }
    }

    @Test("a signature of the wrong length is refused")
    func signatureLength() throws {
        let parts = Self.parts(F.token())
        let signature = try #require(Base64URL.decode(parts[2]))
        for bytes in [[], Array(signature.prefix(63)), signature + [0], signature + signature] {
            F.expectRejected(parts[0] + "." + parts[1] + "." + Base64URL.encode(bytes), as: .badSignature)
        }
    }

    @Test("every truncation of a valid token is refused")
    func truncated() {
        let token = F.token()
        let verifier = F.verifier()
        #expect(F.rejection(token, by: verifier) == nil)
        for length in 0..<token.count {
            let error = F.rejection(String(token.prefix(length)), by: verifier)
            #expect(error != nil, "a prefix of \(length) characters verified")
        }
        let parts = Self.parts(token)
        F.expectRejected(parts[0] + "." + parts[1], as: .malformed)
        F.expectRejected(parts[0] + "." + parts[1] + ".", as: .badSignature)
        F.expectRejected(String(token.dropLast()), as: .malformed)
    }

    @Test("padding, foreign characters or extra parts in a token are refused")
    func encodingRefusals() {
        let token = F.token()
        let parts = Self.parts(token)
        #expect(F.rejection(token) == nil)
        for index in 0..<3 {
            var padded = parts
            padded[index] += "="
            F.expectRejected(padded.joined(separator: "."), as: .malformed)
            var spaced = parts
            spaced[index] = " " + spaced[index]
            F.expectRejected(spaced.joined(separator: "."), as: .malformed)
        }
        // A signature re-encoded with padding, as standard base64 would.
        let unpaddedLength = parts[2].count
        #expect(unpaddedLength % 4 == 2)
        F.expectRejected(token + "==", as: .malformed)
        F.expectRejected(
            token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"),
            as: .malformed)
        F.expectRejected(token + ".", as: .malformed)
        F.expectRejected(token + "." + parts[2], as: .malformed)
        F.expectRejected("", as: .malformed)
        F.expectRejected("..", as: .malformed)
        F.expectRejected(token + String(repeating: "A", count: 9000), as: .malformed)
    }

    @Test(
        "a header that embeds, points to or adds rules for keys is refused, even over a valid signature",
        arguments: [
            "jwk", "jku", "x5u", "x5c", "crit",
        ])
    func keysFromTheHeader(member: String) {
        let values = [
            "jwk": String(decoding: F.attackerKey.keySetJSON, as: UTF8.self),
            "jku": #""https://evil.example.com/jwks.json""#,
            "x5u": #""https://evil.example.com/cert.pem""#,
            "x5c": #"["MIIB"]"#,
            "crit": #"["exp"]"#,
        ]
        let header = F.header(extra: #""\#(member)":\#(values[member] ?? "null")"#)
        F.expectRejected(F.token(header: header, payload: F.payload, signedBy: F.currentKey), as: .unknownKey)
    }

    @Test("a token carrying the attacker's own JWK and signed by it is refused")
    func embeddedAttackerKey() {
        let jwk = String(decoding: F.attackerKey.keySetJSON, as: UTF8.self)
        let header = F.header(kid: F.attackerKey.keyID, extra: #""jwk":\#(jwk)"#)
        F.expectRejected(
            F.token(header: header, payload: F.payload, signedBy: F.attackerKey), as: .unknownKey)
        let headerUnderOurKid = F.header(kid: F.currentKey.keyID, extra: #""jwk":\#(jwk)"#)
        F.expectRejected(
            F.token(header: headerUnderOurKid, payload: F.payload, signedBy: F.attackerKey), as: .unknownKey)
    }

    @Test("a header that is not a JSON object is refused")
    func malformedHeader() {
        for header in ["", "[]", "\"EdDSA\"", "{", "{\"alg\":\"EdDSA\",}", "null"] {
            F.expectRejected(
                F.token(header: header, payload: F.payload, signedBy: F.currentKey), as: .malformed)
        }
    }
}

extension Ed25519SigningKey {
    /// The key's public JWK as JSON.
    var keySetJSON: [UInt8] { Array(jwk.jsonText.utf8) }
}

@Suite struct DuplicateMemberTests {
    typealias F = TokenFixtures

    @Test("a header with alg twice is refused, whichever comes first, even over a valid signature")
    func duplicateAlg() {
        let kid = F.currentKey.keyID
        for header in [
            #"{"alg":"EdDSA","kid":"\#(kid)","alg":"none"}"#,
            #"{"alg":"none","kid":"\#(kid)","alg":"EdDSA"}"#,
            #"{"alg":"EdDSA","kid":"\#(kid)","\u0061lg":"EdDSA"}"#,
            #"{"alg":"EdDSA","kid":"x","kid":"\#(kid)"}"#,
        ] {
            F.expectRejected(
                F.token(header: header, payload: F.payload, signedBy: F.currentKey), as: .malformed)
        }
    }

    @Test("claims with a member twice are refused, even over a valid signature")
    func duplicateClaims() {
        let payload = String(F.payload.dropLast()) + #","aud":"https://evil.example.com"}"#
        F.expectRejected(
            F.token(header: F.header(), payload: payload, signedBy: F.currentKey), as: .malformed)
    }
}
