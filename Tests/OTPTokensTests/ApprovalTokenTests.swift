import Foundation
import Testing

@testable import OTPTokens

@Suite struct ApprovalTokenTests {
    typealias F = TokenFixtures

    @Test("a signed token verifies and gives back its claims")
    func roundTrip() throws {
        let claims = F.claims()
        #expect(try F.verifier().verify(F.token(claims)) == claims)
    }

    @Test("a token is three unpadded base64url parts with the header alg EdDSA, the key's kid and typ JWT")
    func shape() throws {
        let token = F.token()
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(!token.contains("="))
        let header = try #require(Base64URL.decode(parts[0]))
        #expect(
            String(decoding: header, as: UTF8.self)
                == #"{"alg":"EdDSA","kid":"\#(F.currentKey.keyID)","typ":"JWT"}"#)
        let payload = try #require(Base64URL.decode(parts[1]))
        #expect(
            String(decoding: payload, as: UTF8.self)
                == #"{"aud":"https://app.example.com","channel":"sms","exp":1767225890,"iat":1767225590,"#
                + #""iss":"https://otp.example.com","jti":"at_91fZk2","phone_number":"+15550100","#
                + #""phone_number_verified":true,"sub":"vf_8Jd2kQ"}"#)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        #expect(String(decoding: payload, as: UTF8.self) == F.claims().json)
    }

    @Test("claims with quotes, backslashes, control characters and non-ASCII text survive signing")
    func escaping() throws {
        var claims = F.claims()
        claims.sub = "vf_\"quoted\"\\back\u{01}\n\tünï📱"
        claims.jti = "</script>"
        #expect(try F.verifier().verify(F.token(claims)) == claims)
    }

    @Test("a token for another audience is refused")
    func wrongAudience() {
        F.expectRejected(F.token(F.claims(aud: "https://evil.example.com")), as: .wrongAudience)
        F.expectRejected(F.token(F.claims(aud: "https://app.example.com/")), as: .wrongAudience)
    }

    @Test("an aud array is accepted when it contains the audience and refused when it does not")
    func audienceArray() throws {
        let verifier = F.verifier()
        func token(aud: String) -> String {
            let payload =
                #"{"aud":\#(aud),"channel":"email","exp":\#(F.now + 100),"iat":\#(F.now),"#
                + #""email":"a@example.org","email_verified":true,"#
                + #""iss":"https://otp.example.com","jti":"j","sub":"s"}"#
            return F.token(header: F.header(), payload: payload, signedBy: F.currentKey)
        }
        let claims = try verifier.verify(
            token(aud: #"["https://other.example.com","https://app.example.com"]"#))
        #expect(claims.aud == F.audience)
        #expect(claims.channel == "email")
        F.expectRejected(token(aud: #"["https://other.example.com"]"#), as: .wrongAudience, by: verifier)
        F.expectRejected(token(aud: "[]"), as: .wrongAudience, by: verifier)
        F.expectRejected(token(aud: "[1]"), as: .malformed, by: verifier)
        F.expectRejected(token(aud: "null"), as: .malformed, by: verifier)
    }

    @Test("a token from another issuer is refused")
    func wrongIssuer() {
        F.expectRejected(F.token(F.claims(iss: "https://evil.example.com")), as: .wrongIssuer)
        F.expectRejected(F.token(), as: .wrongIssuer, by: F.verifier(issuer: "https://otp.example.org"))
    }

    @Test("a token expires at exp plus the clock skew, not before")
    func expiry() throws {
        let claims = F.claims(iat: F.now - 400, exp: F.now - 59)
        #expect(try F.verifier().verify(F.token(claims)) == claims)
        F.expectRejected(F.token(F.claims(iat: F.now - 400, exp: F.now - 60)), as: .expired)
        F.expectRejected(F.token(F.claims(iat: F.now - 400, exp: F.now - 61)), as: .expired)
        // The same token, verified later by an injected clock.
        let token = F.token()
        #expect(throws: Never.self) { try F.verifier(at: F.now + 349).verify(token) }
        F.expectRejected(token, as: .expired, by: F.verifier(at: F.now + 350))
    }

    @Test("a token issued in the future beyond the clock skew is not yet valid")
    func notYetValid() throws {
        let claims = F.claims(iat: F.now + 60, exp: F.now + 300)
        #expect(try F.verifier().verify(F.token(claims)) == claims)
        F.expectRejected(F.token(F.claims(iat: F.now + 61, exp: F.now + 300)), as: .notYetValid)
        F.expectRejected(F.token(F.claims(iat: F.now + 3600, exp: F.now + 3900)), as: .notYetValid)
    }

    @Test("the clock skew is the verifier's choice")
    func skew() {
        let date = F.nowDate
        let strict = ApprovalTokenVerifier(
            keySet: ApprovalTokenSigner(keys: [F.currentKey]).keySet, issuer: F.issuer, audience: F.audience,
            maxClockSkew: .zero, now: { date })
        F.expectRejected(F.token(F.claims(iat: F.now + 1, exp: F.now + 300)), as: .notYetValid, by: strict)
        F.expectRejected(F.token(F.claims(iat: F.now - 300, exp: F.now)), as: .expired, by: strict)
        #expect(throws: Never.self) { try strict.verify(F.token(F.claims(iat: F.now, exp: F.now + 1))) }
    }

    @Test("a lifetime of up to 10 minutes verifies and a longer one is refused")
    func lifetime() throws {
        let tenMinutes = F.claims(iat: F.now, exp: F.now + 600)
        #expect(try F.verifier().verify(F.token(tenMinutes)) == tenMinutes)
        F.expectRejected(F.token(F.claims(iat: F.now, exp: F.now + 601)), as: .tooLong)
        F.expectRejected(F.token(F.claims(iat: F.now - 86_400, exp: F.now + 86_400)), as: .tooLong)
        F.expectRejected(F.token(F.claims(iat: Int.min, exp: Int.max)), as: .tooLong)
        F.expectRejected(F.token(F.claims(iat: F.now, exp: F.now)), as: .malformed)
        F.expectRejected(F.token(F.claims(iat: F.now + 10, exp: F.now)), as: .malformed)
    }

    @Test("claims missing a member or with a member of the wrong type are malformed")
    func incompleteClaims() {
        let complete = F.payload
        for member in ["iss", "sub", "aud", "iat", "exp", "jti", "channel"] {
            let object = try? JSONSerialization.jsonObject(with: Data(complete.utf8)) as? [String: Any]
            var partial = object ?? [:]
            partial[member] = nil
            let data =
                (try? JSONSerialization.data(withJSONObject: partial, options: [.sortedKeys])) ?? Data()
            let payload = String(decoding: data, as: UTF8.self)
            F.expectRejected(
                F.token(header: F.header(), payload: payload, signedBy: F.currentKey), as: .malformed)
        }
        let stringTime = complete.replacingOccurrences(of: #""exp":1767225890"#, with: #""exp":"1767225890""#)
        #expect(stringTime != complete)
        F.expectRejected(
            F.token(header: F.header(), payload: stringTime, signedBy: F.currentKey), as: .malformed)
        F.expectRejected(F.token(header: F.header(), payload: "[]", signedBy: F.currentKey), as: .malformed)
        F.expectRejected(F.token(header: F.header(), payload: "", signedBy: F.currentKey), as: .malformed)
    }

    @Test("after a rotation, tokens of the old key still verify against the published set")
    func rotation() throws {
        let rotated = ApprovalTokenSigner(keys: [F.currentKey, F.oldKey])
        #expect(rotated.keySet.keys == [F.currentKey.jwk, F.oldKey.jwk])
        let verifier = ApprovalTokenVerifier(
            keySet: rotated.keySet, issuer: F.issuer, audience: F.audience, now: { F.nowDate })
        let oldToken = ApprovalTokenSigner(keys: [F.oldKey]).token(for: F.claims())
        #expect(try verifier.verify(oldToken) == F.claims())
        let newToken = rotated.token(for: F.claims())
        #expect(newToken.hasPrefix(F.part(F.header(kid: F.currentKey.keyID))))
        #expect(try verifier.verify(newToken) == F.claims())
        // Once the old key is withdrawn, its tokens no longer verify.
        F.expectRejected(oldToken, as: .unknownKey, by: F.verifier(keys: [F.currentKey]))
    }

    @Test("a signer publishes a key listed twice once")
    func duplicateKeys() {
        let signer = ApprovalTokenSigner(keys: [F.currentKey, F.oldKey, F.currentKey])
        #expect(signer.keySet.keys == [F.currentKey.jwk, F.oldKey.jwk])
    }
}
