import Foundation
import Testing

@testable import OTPTokens

@Suite struct JSONWebKeySetTests {
    typealias F = TokenFixtures

    @Test("the published set is compact JSON with each key's members in sorted order")
    func stableJSON() {
        let set = ApprovalTokenSigner(keys: [F.currentKey, F.oldKey]).keySet
        let json = String(decoding: set.json(), as: UTF8.self)
        func key(_ key: Ed25519SigningKey) -> String {
            #"{"alg":"EdDSA","crv":"Ed25519","kid":"\#(key.keyID)","kty":"OKP","use":"sig","#
                + #""x":"\#(key.jwk.x)"}"#
        }
        #expect(json == #"{"keys":["# + key(F.currentKey) + "," + key(F.oldKey) + "]}")
        #expect(set.json() == set.json())
    }

    @Test("the published set decodes to itself, through decode and through JSONDecoder")
    func roundTrip() throws {
        let set = ApprovalTokenSigner(keys: [F.currentKey, F.oldKey]).keySet
        #expect(try JSONWebKeySet.decode(set.json()) == set)
        #expect(try JSONDecoder().decode(JSONWebKeySet.self, from: JSONEncoder().encode(set)) == set)
    }

    @Test("bytes that are not a key set are malformed")
    func malformed() {
        for text in ["", "[]", "{}", #"{"keys":{}}"#, #"{"keys":"#, "null"] {
            let error = #expect(throws: ApprovalTokenError.self) {
                try JSONWebKeySet.decode(Array(text.utf8))
            }
            #expect(error?.kind == .malformed)
        }
    }

    @Test("keys of other types in a set are skipped when decoding")
    func skipsOtherKeyTypes() throws {
        let ours = String(decoding: Array(F.currentKey.jwk.jsonText.utf8), as: UTF8.self)
        let text =
            #"{"keys":[{"kty":"RSA","kid":"r","n":"AQAB","e":"AQAB"},"# + ours
            + #",{"kty":"oct","k":"c2VjcmV0"},42,null]}"#
        let set = try JSONWebKeySet.decode(Array(text.utf8))
        #expect(set.keys == [F.currentKey.jwk])
    }

    @Test(
        "the verifier uses only OKP Ed25519 keys with a 32-byte x, a kid, and alg EdDSA and use sig if given")
    func unusableKeysAreIgnored() throws {
        let good = F.currentKey.jwk
        var wrongType = good
        wrongType.kty = "oct"
        var wrongCurve = good
        wrongCurve.crv = "X25519"
        var shortX = good
        shortX.x = Base64URL.encode(Array(F.currentKey.publicKey.prefix(31)))
        var paddedX = good
        paddedX.x += "="
        var wrongAlg = good
        wrongAlg.alg = "HS256"
        var wrongUse = good
        wrongUse.use = "enc"
        var noKid = good
        noKid.kid = nil
        let token = F.token()
        for jwk in [wrongType, wrongCurve, shortX, paddedX, wrongAlg, wrongUse, noKid] {
            let verifier = ApprovalTokenVerifier(
                keySet: JSONWebKeySet(keys: [jwk]), issuer: F.issuer, audience: F.audience, now: { F.nowDate }
            )
            F.expectRejected(token, as: .unknownKey, by: verifier)
        }
        var minimal = good
        minimal.alg = nil
        minimal.use = nil
        let verifier = ApprovalTokenVerifier(
            keySet: JSONWebKeySet(keys: [wrongType, minimal]), issuer: F.issuer, audience: F.audience,
            now: { F.nowDate })
        #expect(try verifier.verify(token) == F.claims())
    }

    @Test("an unusable key under a kid does not hide a usable key with the same kid")
    func sharedKid() throws {
        var other = F.oldKey.jwk
        other.kid = F.currentKey.keyID
        let verifier = ApprovalTokenVerifier(
            keySet: JSONWebKeySet(keys: [other, F.currentKey.jwk]), issuer: F.issuer, audience: F.audience,
            now: { F.nowDate })
        #expect(try verifier.verify(F.token()) == F.claims())
        F.expectRejected(
            F.token(header: F.header(), payload: F.payload, signedBy: F.attackerKey), as: .badSignature,
            by: verifier)
    }
}
