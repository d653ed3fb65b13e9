import Foundation

/// Verifies approval tokens offline against a published key set, for one issuer and one audience.
///
/// A token passes only when it has three canonical base64url parts; a header and claims in strict
/// JSON with unique member names; a header with `alg` exactly `EdDSA`, the `kid` of a usable key in
/// the set, and no `crit`, `jku`, `jwk`, `x5u` or `x5c`; a valid Ed25519 signature over
/// `header.payload`; and claims with every member, the expected `iss` and `aud`, a lifetime of at
/// most ``maximumLifetime`` seconds, not expired and not issued in the future, each within the
/// allowed clock skew; exactly one verified destination (`phone_number` with
/// `phone_number_verified: true`, or `email` with `email_verified: true`); and whatever
/// ``ApprovalExpectations`` the caller passes (nonce, ref, destination, transaction; a test
/// destination's token only when allowed). Keys never come from the token.
public struct ApprovalTokenVerifier: Sendable {
    /// The longest lifetime, `exp` minus `iat`, of a token that verifies, in seconds.
    public static let maximumLifetime = 600
    /// The longest token text that is read at all, in bytes.
    public static let maximumTokenLength = 8192

    private let publicKeys: [String: [[UInt8]]]
    private let issuer: String
    private let audience: String
    private let skewSeconds: Double
    private let now: @Sendable () -> Date

    /// Makes a verifier that trusts the usable keys of `keySet` and accepts `issuer`'s tokens for `audience`.
    ///
    /// - Parameters:
    ///   - keySet: The issuer's published keys; only Ed25519 keys with a `kid` are used.
    ///   - issuer: The `iss` a token must have: the OTPKit server's public URL.
    ///   - audience: The `aud` a token must have or contain: this app's origin.
    ///   - maxClockSkew: How far the issuer's clock may be from this one; negative counts as zero.
    ///   - now: The current time; tests pass a fixed one.
    public init(
        keySet: JSONWebKeySet, issuer: String, audience: String, maxClockSkew: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        var publicKeys: [String: [[UInt8]]] = [:]
        for key in keySet.keys {
            if let kid = key.kid, let bytes = key.usableEd25519PublicKey {
                publicKeys[kid, default: []].append(bytes)
            }
        }
        self.publicKeys = publicKeys
        self.issuer = issuer
        self.audience = audience
        let components = maxClockSkew.components
        self.skewSeconds = max(0, Double(components.seconds) + Double(components.attoseconds) / 1e18)
        self.now = now
    }

    /// The claims of `token` when it passes every rule and meets `expectations`; otherwise the first
    /// rule it breaks.
    public func verify(
        _ token: String, expecting expectations: ApprovalExpectations = ApprovalExpectations()
    ) throws(ApprovalTokenError) -> ApprovalClaims {
        let claims = try verifySignedClaims(token)
        if let violation = expectations.violation(of: claims) { throw violation }
        return claims
    }

    private func verifySignedClaims(_ token: String) throws(ApprovalTokenError) -> ApprovalClaims {
        guard token.utf8.count <= Self.maximumTokenLength else {
            throw .malformed("the token is over \(Self.maximumTokenLength) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else {
            throw .malformed("a token has three parts separated by dots; this one has \(parts.count)")
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else {
            throw .malformed("a part of the token is not base64url without padding")
        }
        let header = try decodeHeader(headerBytes)
        guard header.alg == JSONWebKey.edDSAAlgorithm else {
            throw .unsupportedAlgorithm("the token's alg is not EdDSA, the only algorithm accepted")
        }
        guard header.refused.isEmpty else {
            throw .unknownKey(
                "the token's header has \(header.refused.joined(separator: ", ")); "
                    + "keys and rules come only from the key set")
        }
        guard let kid = header.kid else {
            throw .unknownKey("the token's header names no key (kid)")
        }
        guard let candidates = publicKeys[kid] else {
            throw .unknownKey("the token's kid is not a usable key of the key set")
        }
        guard signature.count == Ed25519.signatureByteCount else {
            throw .badSignature("the token's signature is not \(Ed25519.signatureByteCount) bytes")
        }
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        guard
            candidates.contains(where: {
                Ed25519.isValidSignature(signature, of: signingInput, publicKey: $0)
            })
        else {
            throw .badSignature("the token's signature is not valid for the key its kid names")
        }
        return try check(decodeClaims(payloadBytes))
    }

    private func decodeHeader(_ bytes: [UInt8]) throws(ApprovalTokenError) -> TokenHeader {
        guard StrictJSON.isValid(bytes) else {
            throw .malformed("the token's header is not strict JSON with unique member names")
        }
        do {
            return try JSONDecoder().decode(TokenHeader.self, from: Data(bytes))
        } catch {
            throw .malformed("the token's header is not a JSON object with string alg and kid")
        }
    }

    private func decodeClaims(_ bytes: [UInt8]) throws(ApprovalTokenError) -> TokenClaims {
        guard StrictJSON.isValid(bytes) else {
            throw .malformed("the token's claims are not strict JSON with unique member names")
        }
        do {
            return try JSONDecoder().decode(TokenClaims.self, from: Data(bytes))
        } catch {
            throw .malformed(
                "the token's claims are not a JSON object with iss, sub, aud, iat, exp, jti and channel, "
                    + "and optional claims of their types")
        }
    }

    private func check(_ claims: TokenClaims) throws(ApprovalTokenError) -> ApprovalClaims {
        guard claims.iss == issuer else {
            throw .wrongIssuer("the token's issuer is not \(issuer)")
        }
        guard claims.aud.contains(audience) else {
            throw .wrongAudience("the token's audience is not \(audience)")
        }
        let (lifetime, overflow) = claims.exp.subtractingReportingOverflow(claims.iat)
        guard !overflow, lifetime <= Self.maximumLifetime else {
            throw .tooLong("the token's lifetime is over \(Self.maximumLifetime) seconds")
        }
        guard lifetime > 0 else {
            throw .malformed("the token expires before it was issued")
        }
        let current = now().timeIntervalSince1970
        guard Double(claims.exp) > current - skewSeconds else {
            throw .expired("the token has expired")
        }
        guard Double(claims.iat) <= current + skewSeconds else {
            throw .notYetValid("the token was issued in the future")
        }
        switch (claims.phoneNumber, claims.email) {
        case (.some, nil):
            guard claims.phoneNumberVerified == true, claims.emailVerified == nil else {
                throw .malformed("the token's phone_number is not marked phone_number_verified: true")
            }
        case (nil, .some):
            guard claims.emailVerified == true, claims.phoneNumberVerified == nil else {
                throw .malformed("the token's email is not marked email_verified: true")
            }
        default:
            throw .malformed("the token names no verified destination, or two (phone_number and email)")
        }
        return ApprovalClaims(
            iss: claims.iss, sub: claims.sub, aud: audience, iat: claims.iat, exp: claims.exp,
            jti: claims.jti, channel: claims.channel, phoneNumber: claims.phoneNumber, email: claims.email,
            test: claims.test ?? false, ref: claims.ref, nonce: claims.nonce, txn: claims.txn)
    }
}
