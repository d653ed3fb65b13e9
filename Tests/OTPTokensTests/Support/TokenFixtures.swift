import Foundation
import Testing

@testable import OTPTokens

/// Keys, times, claims and hand-built tokens shared by the token tests.
enum TokenFixtures {
    static let issuer = "https://otp.example.com"
    static let audience = "https://app.example.com"
    /// 2026-01-01T00:00:00Z.
    static let now = 1_767_225_600
    static let nowDate = Date(timeIntervalSince1970: TimeInterval(now))

    static let currentSeed: [UInt8] = Array(0x01...0x20)
    static let oldSeed: [UInt8] = Array(0x21...0x40)
    static let attackerSeed: [UInt8] = Array(0x41...0x60)

    static func key(_ seed: [UInt8]) -> Ed25519SigningKey {
        do {
            return try Ed25519SigningKey(seed: seed)
        } catch {
            preconditionFailure("fixture seed refused: \(error)")
        }
    }

    static let currentKey = key(currentSeed)
    static let oldKey = key(oldSeed)
    static let attackerKey = key(attackerSeed)

    static func claims(
        iss: String = issuer, aud: String = audience, iat: Int = now - 10, exp: Int = now + 290
    ) -> ApprovalClaims {
        ApprovalClaims(
            iss: iss, sub: "vf_8Jd2kQ", aud: aud, iat: iat, exp: exp, jti: "at_91fZk2", channel: "sms",
            phoneNumber: "+15550100")
    }

    static func verifier(
        keys: [Ed25519SigningKey] = [currentKey], issuer: String = issuer, audience: String = audience,
        at time: Int = now
    ) -> ApprovalTokenVerifier {
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        return ApprovalTokenVerifier(
            keySet: ApprovalTokenSigner(keys: keys).keySet, issuer: issuer, audience: audience, now: { date })
    }

    static func token(_ claims: ApprovalClaims = claims(), by key: Ed25519SigningKey = currentKey) -> String {
        ApprovalTokenSigner(keys: [key]).token(for: claims)
    }

    static func part(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    /// A token with exactly this header and payload JSON, signed by `key` (or with `signature`).
    static func token(header: String, payload: String, signedBy key: Ed25519SigningKey) -> String {
        let input = part(header) + "." + part(payload)
        return input + "." + Base64URL.encode(key.sign(Array(input.utf8)))
    }

    static func header(alg: String = "EdDSA", kid: String? = currentKey.keyID, extra: String = "") -> String {
        var members = ["\"alg\":\"\(alg)\""]
        if let kid { members.append("\"kid\":\"\(kid)\"") }
        members.append("\"typ\":\"JWT\"")
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    static let payload = claims().jsonText

    /// The error `verify` throws for `token`, or `nil` when it verifies.
    static func rejection(
        _ token: String, by verifier: ApprovalTokenVerifier = verifier(),
        expecting expectations: ApprovalExpectations = ApprovalExpectations()
    ) -> ApprovalTokenError? {
        do {
            _ = try verifier.verify(token, expecting: expectations)
            return nil
        } catch {
            return error
        }
    }

    /// Every encoding of the fixtures' key material that an error message must never contain.
    static let keyMaterial: [String] =
        [currentSeed, oldSeed, attackerSeed].flatMap { seed in
            [Base64URL.encode(seed), hex(seed), "\(seed)"]
        }
        + [currentKey, oldKey, attackerKey].flatMap { [Base64URL.encode($0.publicKey), hex($0.publicKey)] }

    /// Expects `token` to be refused with `kind`, in a sentence without key material.
    static func expectRejected(
        _ token: String, as kind: ApprovalTokenError.Kind, by verifier: ApprovalTokenVerifier = verifier(),
        expecting expectations: ApprovalExpectations = ApprovalExpectations(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = rejection(token, by: verifier, expecting: expectations)
        #expect(error?.kind == kind, sourceLocation: sourceLocation)
        if let error {
            #expect(!error.description.isEmpty, sourceLocation: sourceLocation)
            for material in keyMaterial {
                #expect(!error.description.contains(material), sourceLocation: sourceLocation)
            }
        }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var output: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            output.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return output
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// HMAC-SHA256 (RFC 2104) built on the module's SHA-256, for forging HS256 tokens.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? (SHA256Hash.hash(key) ?? []) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256Hash.hash(block.map { $0 ^ 0x36 } + message) ?? []
        return SHA256Hash.hash(block.map { $0 ^ 0x5C } + inner) ?? []
    }
}
