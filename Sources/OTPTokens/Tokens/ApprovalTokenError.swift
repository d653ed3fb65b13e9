/// Why an approval token or a key set was refused; never shows key bytes or token contents.
public struct ApprovalTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal.
    public enum Kind: String, Sendable {
        /// The token or key set is not well formed: parts, base64url, JSON, header or claims.
        case malformed
        /// The header's `alg` is not exactly `EdDSA`.
        case unsupportedAlgorithm
        /// The header names no key of the set, or carries or points to a key of its own.
        case unknownKey
        /// The signature is not a valid Ed25519 signature by the named key.
        case badSignature
        /// The `iss` claim is not the expected issuer.
        case wrongIssuer
        /// The `aud` claim is not, or does not contain, the expected audience.
        case wrongAudience
        /// The `exp` claim has passed, beyond the allowed clock skew.
        case expired
        /// The `iat` claim is in the future, beyond the allowed clock skew.
        case notYetValid
        /// The token's lifetime, `exp` minus `iat`, is over the maximum.
        case tooLong
        /// The token's `nonce` is not the one the backend chose for this sign-in.
        case wrongNonce
        /// The token's `ref` is not the expected one.
        case wrongRef
        /// The token names another destination than the one expected, or none.
        case wrongDestination
        /// The token approves another transaction than the one expected, none when one was
        /// expected, or one when none was.
        case wrongTransaction
        /// The token is for a test destination, and test tokens were not allowed.
        case testDestination
    }

    /// What kind of refusal.
    public let kind: Kind
    /// Why, as a sentence.
    public let reason: String

    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// Why, as a sentence.
    public var description: String { reason }

    static func malformed(_ reason: String) -> Self { Self(.malformed, reason) }
    static func unsupportedAlgorithm(_ reason: String) -> Self { Self(.unsupportedAlgorithm, reason) }
    static func unknownKey(_ reason: String) -> Self { Self(.unknownKey, reason) }
    static func badSignature(_ reason: String) -> Self { Self(.badSignature, reason) }
    static func wrongIssuer(_ reason: String) -> Self { Self(.wrongIssuer, reason) }
    static func wrongAudience(_ reason: String) -> Self { Self(.wrongAudience, reason) }
    static func expired(_ reason: String) -> Self { Self(.expired, reason) }
    static func notYetValid(_ reason: String) -> Self { Self(.notYetValid, reason) }
    static func tooLong(_ reason: String) -> Self { Self(.tooLong, reason) }
    static func wrongNonce(_ reason: String) -> Self { Self(.wrongNonce, reason) }
    static func wrongRef(_ reason: String) -> Self { Self(.wrongRef, reason) }
    static func wrongDestination(_ reason: String) -> Self { Self(.wrongDestination, reason) }
    static func wrongTransaction(_ reason: String) -> Self { Self(.wrongTransaction, reason) }
    static func testDestination(_ reason: String) -> Self { Self(.testDestination, reason) }
}
